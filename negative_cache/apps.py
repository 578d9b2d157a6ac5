from django.apps import AppConfig


class NegativeCacheConfig(AppConfig):
    name = "negative_cache"
    verbose_name = "Negative cache"
    default_auto_field = "django.db.models.BigAutoField"
