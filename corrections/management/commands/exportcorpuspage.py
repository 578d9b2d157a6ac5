"""Write a finished search's judged page, with its corrected labels, as a labelled page of the judge's corpus."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from corrections import corpus_page
from corrections.exceptions import CorrectionError
from jobs.models import Job


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("job_id", type=uuid.UUID, help="the SEARCH job's id")
        parser.add_argument("--dir", type=Path, default=None, help="the corpus folder (default: the judge's corpus)")
        parser.add_argument("--category", default=corpus_page.DEFAULT_CATEGORY, help="the subfolder to write into")
        parser.add_argument(
            "--print", dest="print_page", action="store_true", help="print the page instead of writing a file"
        )

    def handle(self, *args, job_id, dir, category, print_page, **options):
        job = Job.objects.filter(job_id=job_id).first()
        if job is None:
            raise CommandError(f"no job {job_id}")
        try:
            if print_page:
                self.stdout.write(corpus_page.dumps(corpus_page.corpus_page(job, category=category)), ending="")
                return
            path = corpus_page.write(job, root=dir, category=category)
        except CorrectionError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(str(path))
