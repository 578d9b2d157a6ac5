from django.apps import AppConfig


class WatchesConfig(AppConfig):
    name = "watches"
    verbose_name = "Watches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from jobs import maintenance
        from search import hooks
        from watches import changes, delivery, reuse, schedule

        # The scheduler rides the reaper (watches/schedule.py says why): each pass enqueues the due runs.
        maintenance.register("schedule due watches", schedule.scheduler_step, reports="scheduled {count} watch runs")
        maintenance.register(
            "restart stranded watch deliveries",
            delivery.restart_stranded,
            reports="restarted {count} watch deliveries",
        )
        maintenance.register("prune reusable results", reuse.prune_old, reports="pruned {count} reusable results")
        # A watch's run may be answered by a fresh result of the same product; every finished search is then told
        # to the watches it answers (and kept for reuse when a browser found it).
        hooks.register_answerer("watches: reuse a fresh result", reuse.answer)
        hooks.register_listener("watches: record the run", changes.record_finished_search)
        hooks.register_listener("watches: keep for reuse", reuse.remember)
