from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from jobs import handlers, maintenance
        from lps_site.job_types import JobType
        from search import handler, marketplaces, retention

        # A heavy lane (a browser per handler): never claimed ahead, so no search waits in a busy worker while
        # another is idle.
        handlers.register(
            JobType.SEARCH,
            label=JobType.SEARCH.label,
            deadline_setting="LPS_SEARCH_DEADLINE_SECONDS",
            concurrency_setting="LPS_SEARCH_CONCURRENCY",
        )(handler.run_search)
        # The worker's one browser goes down with the worker, not with the interpreter's exit.
        handlers.on_worker_shutdown(handler.close_shared_crawler)
        handlers.on_worker_shutdown(marketplaces.close_shared_naver)
        maintenance.register(
            "end abandoned IP sessions",
            retention.end_sessions_of_dead_workers,
            reports="ended {count} abandoned IP sessions",
        )
        maintenance.register(
            "delete old failure snapshots", retention.prune_old_snapshots, reports="deleted {count} snapshot files"
        )
