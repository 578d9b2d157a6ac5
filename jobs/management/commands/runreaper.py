"""`manage.py runreaper [--once] [--metrics-port N]`: reclaim expired leases, prune old jobs, run the apps'
maintenance units."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from jobs.exceptions import QueueUnavailable
from jobs.management.metrics_port import add_metrics_arguments, serve_metrics
from jobs.reaper import Reaper


class Command(BaseCommand):
    help = "Reclaim jobs whose lease ran out and prune old finished jobs, every LPS_REAPER_INTERVAL seconds."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="run one pass, print what it did, and exit")
        parser.add_argument("--interval", type=float, default=None, help="seconds between passes")
        add_metrics_arguments(parser)

    def handle(self, *args, once: bool, interval: float | None, metrics_port: int | None, **options):
        if interval is not None and interval <= 0:
            raise CommandError("--interval must be positive")
        reaper = Reaper(interval=interval)
        if once:
            try:
                self.stdout.write(str(reaper.run_once()))
            except QueueUnavailable as exc:
                raise CommandError(f"{type(exc).__name__}: {exc}") from exc
            return
        serve_metrics(metrics_port, options["metrics_bind"])
        reaper.install_signal_handlers()
        reaper.run()
