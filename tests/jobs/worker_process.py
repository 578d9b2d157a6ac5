"""A worker process for the tests: the real Worker with the scripted handlers, against DATABASE_URL.

    python -m tests.jobs.worker_process work --record FILE [--ready-file FILE] [--burst] [--poll-only]
        [--poll-interval S] [--lease S] [--grace S] [--search-concurrency N] [--outbox-concurrency N]
    python -m tests.jobs.worker_process enqueue --count N [--job-type OUTBOX] [--payload JSON]
    python -m tests.jobs.worker_process counts

Run from the project root. `enqueue` and `counts` let a test drive a database its own process is not
connected to (the private server of the restart test) through the real queue API.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    work = commands.add_parser("work")
    work.add_argument("--record", type=Path, required=True)
    work.add_argument("--ready-file", type=Path)
    work.add_argument("--burst", action="store_true")
    work.add_argument("--poll-only", action="store_true")
    work.add_argument("--poll-interval", type=float, default=60.0)
    work.add_argument("--lease", type=float, default=30.0)
    work.add_argument("--grace", type=float, default=5.0)
    work.add_argument("--search-concurrency", type=int, default=2)
    work.add_argument("--outbox-concurrency", type=int, default=4)
    enqueue = commands.add_parser("enqueue")
    enqueue.add_argument("--count", type=int, default=1)
    enqueue.add_argument("--job-type", default="OUTBOX")
    enqueue.add_argument("--payload", default="{}")
    commands.add_parser("counts")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
    import django

    django.setup()

    from jobs import queue, queue_reads
    from jobs.worker import Worker
    from lps_site.job_types import JobType
    from tests.jobs.scripted import scripted_registry

    if args.command == "enqueue":
        job_type = JobType[args.job_type]
        payload = json.loads(args.payload)
        enqueued = queue.enqueue_many([queue.NewJob(job_type, payload) for _ in range(args.count)])
        print(json.dumps([str(e.job_id) for e in enqueued]))
        return 0
    if args.command == "counts":
        print(json.dumps(queue_reads.counts()))
        return 0

    worker = Worker(
        scripted_registry(args.record),
        concurrency={JobType.SEARCH: args.search_concurrency, JobType.OUTBOX: args.outbox_concurrency},
        lease_seconds=args.lease,
        poll_interval=args.poll_interval,
        poll_only=args.poll_only,
        burst=args.burst,
        grace_seconds=args.grace,
        shutdown_hooks=[],
    )
    worker.install_signal_handlers()
    if args.ready_file:

        def announce_ready() -> None:
            if worker.ready.wait(timeout=30):
                announce(args.ready_file, worker.worker_id)

        threading.Thread(target=announce_ready, daemon=True).start()
    exit_code = worker.run()
    if args.ready_file and not args.ready_file.exists():
        # A burst can end before the announcing thread had its turn; the tests still read the id.
        announce(args.ready_file, worker.worker_id)
    return exit_code


def announce(ready_file: Path, worker_id: str) -> None:
    """Write the worker's id so that the file appears with it: a test polling for the file never reads it
    created but still empty."""
    partial = ready_file.with_name(ready_file.name + ".partial")
    partial.write_text(worker_id)
    partial.replace(ready_file)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
