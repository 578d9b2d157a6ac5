from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the OUTBOX handler with the job registry (a worker runs whatever is registered).
        from api import outbox, ratelimit, submit, watch_events, webhooks  # noqa: F401
        from jobs import maintenance
        from search import hooks
        from watches import callbacks

        # The API owns its webhook: a finished search, and a changed answer, are enqueued here for delivery.
        hooks.register_listener("api: the search's webhook", outbox.deliver_finished_search)
        hooks.register_change_listener("api: the corrected answer's webhook", outbox.deliver_changed_answer)

        # A sheet of watches, posted here or imported in the admin, has its callback hosts vetted as a JSON watch's.
        callbacks.register(submit.callback_refusals)

        maintenance.register(
            "forget idle rate-limit buckets", ratelimit.prune, reports="forgot {count} idle rate-limit buckets"
        )
