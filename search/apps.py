from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from jobs import handlers
        from jobs.models import JobType
        from search import handler

        handlers.register(JobType.SEARCH, deadline_setting="LPS_SEARCH_DEADLINE_SECONDS")(handler.run_search)
        # The worker's one browser goes down with the worker, not with the interpreter's exit.
        handlers.on_worker_shutdown(handler.close_shared_crawler)
