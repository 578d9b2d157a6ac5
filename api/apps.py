from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the OUTBOX handler with the job registry (a worker runs whatever is registered).
        from api import outbox, ratelimit, watch_events, webhooks  # noqa: F401
        from jobs import maintenance
        from search import hooks

        # The API owns its webhook: a finished search, and a changed answer, are enqueued here for delivery.
        hooks.register_listener("api: the search's webhook", outbox.deliver_finished_search)
        hooks.register_change_listener("api: the corrected answer's webhook", outbox.deliver_changed_answer)

        maintenance.register(
            "forget idle rate-limit buckets", ratelimit.prune, reports="forgot {count} idle rate-limit buckets"
        )
