"""Create an API client and print its key and webhook secret, once, as one JSON line (SPEC §8)."""

import json

from django.core.management.base import BaseCommand, CommandError

from api import keys
from api.exceptions import ApiError


class Command(BaseCommand):
    help = 'Create an API client; print {"name", "api_key", "webhook_secret"} as one JSON line.'

    def add_arguments(self, parser):
        parser.add_argument("name", help="a unique name for the client")
        parser.add_argument("--operator", action="store_true", help="allow the operator endpoints")

    def handle(self, *args, **options):
        try:
            issued = keys.issue_key(options["name"], operator=options["operator"])
        except ApiError as exc:
            raise CommandError(exc.message) from exc
        line = {"name": issued.client.name, "api_key": issued.api_key, "webhook_secret": issued.webhook_secret}
        self.stdout.write(json.dumps(line, ensure_ascii=False))
