from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    name = "corrections"
    verbose_name = "Corrections"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from corrections import lookup, review_queue
        from search import hooks, overrides

        # Every search asks for its product's corrections before the judge (search never imports this app).
        overrides.register(lookup.overrides_for)
        # A finished search's review items become the operators' queue (told through search/hooks.py).
        hooks.register_listener("corrections.review", review_queue.record_finished_search)
