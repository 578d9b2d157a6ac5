from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the OUTBOX handler with the job registry (a worker runs whatever is registered).
        from api import ratelimit, watch_events, webhooks  # noqa: F401
        from jobs import maintenance

        maintenance.register(
            "forget idle rate-limit buckets", ratelimit.prune, reports="forgot {count} idle rate-limit buckets"
        )
