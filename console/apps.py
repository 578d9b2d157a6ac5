from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The operators' console: the dashboard, the job report and the site's look, over the other apps' admin."""

    name = "console"
    verbose_name = "Operations console"
