from django.apps import AppConfig


class NegativeCacheConfig(AppConfig):
    name = "negative_cache"
    verbose_name = "Negative cache"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from jobs import maintenance
        from negative_cache import cache

        maintenance.register(
            "purge expired negative-cache rows",
            lambda limit: cache.purge_expired(limit=limit),
            reports="purged {count} negative-cache rows",
        )
