"""Give an API client a new webhook secret and print it, once, as one JSON line (the key is unchanged)."""

import json

from django.core.management.base import BaseCommand, CommandError

from api import keys
from api.models import ApiClient


class Command(BaseCommand):
    help = (
        'Give the API client NAME a new webhook secret; print {"name", "webhook_secret"} as one JSON line. '
        "Webhooks are signed with it from now on (retries of earlier ones too); the old secret stops at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="the client's name")

    def handle(self, *args, **options):
        client = ApiClient.objects.filter(name=options["name"].strip()).first()
        if client is None:
            raise CommandError(f"no API client is named {options['name']!r}")
        if not client.is_active:
            raise CommandError(f"the API client {client.name!r} is revoked: it gets no webhooks")
        secret = keys.rotate_webhook_secret(client)
        self.stdout.write(json.dumps({"name": client.name, "webhook_secret": secret}, ensure_ascii=False))
