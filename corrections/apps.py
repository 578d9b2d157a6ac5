from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    name = "corrections"
    verbose_name = "Corrections"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from corrections import lookup
        from search import overrides

        # Every search asks for its product's corrections before the judge (search never imports this app).
        overrides.register(lookup.overrides_for)
