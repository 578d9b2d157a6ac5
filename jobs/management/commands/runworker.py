"""`manage.py runworker [--search-concurrency N] [--outbox-concurrency N] [--burst] [--metrics-port N]`: claim and
run jobs."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from jobs.management.metrics_port import add_metrics_arguments, serve_metrics
from jobs.worker import Worker


def count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def seconds(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise ValueError(text)
    return value


class Command(BaseCommand):
    help = "Claim and run queued jobs until SIGTERM (or, with --burst, until nothing is claimable)."

    def add_arguments(self, parser):
        parser.add_argument("--search-concurrency", type=count, default=None, help="SEARCH jobs at once")
        parser.add_argument("--outbox-concurrency", type=count, default=None, help="OUTBOX jobs at once")
        parser.add_argument("--burst", action="store_true", help="exit 0 once no job is claimable")
        parser.add_argument(
            "--poll-only", action="store_true", default=None, help="never LISTEN (for transaction-mode poolers)"
        )
        parser.add_argument("--poll-interval", type=seconds, default=None, help="seconds between safety polls")
        add_metrics_arguments(parser)

    def handle(
        self, *args, search_concurrency, outbox_concurrency, burst, poll_only, poll_interval, metrics_port, **options
    ):
        try:
            worker = Worker(
                search_concurrency=search_concurrency,
                outbox_concurrency=outbox_concurrency,
                burst=burst,
                poll_only=poll_only,
                poll_interval=poll_interval,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        serve_metrics(metrics_port, options["metrics_bind"])
        worker.install_signal_handlers()
        exit_code = worker.run()
        if exit_code:
            sys.exit(exit_code)
