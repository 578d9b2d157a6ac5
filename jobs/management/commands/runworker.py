"""`manage.py runworker [--<type>-concurrency N]… [--burst] [--metrics-port N]`: claim and run jobs.

One `--<label>-concurrency` flag per registered job type (jobs.handlers), e.g. `--report-concurrency`."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify

from jobs import handlers
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


def _concurrency_flags() -> dict[int, str]:
    """Each registered job type's concurrency flag (`--report-concurrency` for a type labelled REPORT)."""
    return {
        job_type: f"--{slugify(registration.label)}-concurrency"
        for job_type, registration in handlers.registered().items()
    }


def _dest(job_type: int) -> str:
    return f"concurrency_of_type_{job_type}"


class Command(BaseCommand):
    help = "Claim and run queued jobs until SIGTERM (or, with --burst, until nothing is claimable)."

    def add_arguments(self, parser):
        for job_type, flag in _concurrency_flags().items():
            parser.add_argument(
                flag, dest=_dest(job_type), metavar="N", type=count, help=f"{handlers.label(job_type)} jobs at once"
            )
        parser.add_argument("--burst", action="store_true", help="exit 0 once no job is claimable")
        parser.add_argument(
            "--poll-only", action="store_true", default=None, help="never LISTEN (for transaction-mode poolers)"
        )
        parser.add_argument("--poll-interval", type=seconds, default=None, help="seconds between safety polls")
        add_metrics_arguments(parser)

    def handle(self, *args, burst, poll_only, poll_interval, metrics_port, **options):
        concurrency = {
            job_type: options[_dest(job_type)]
            for job_type in _concurrency_flags()
            if options[_dest(job_type)] is not None
        }
        try:
            worker = Worker(concurrency=concurrency, burst=burst, poll_only=poll_only, poll_interval=poll_interval)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        serve_metrics(metrics_port, options["metrics_bind"])
        worker.install_signal_handlers()
        exit_code = worker.run()
        if exit_code:
            sys.exit(exit_code)
