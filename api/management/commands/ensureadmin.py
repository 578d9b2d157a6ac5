"""Make sure a local operator can log in to the admin, and say how (used by bin/run)."""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

PASSWORD_FILE = settings.BASE_DIR / ".lps" / "admin_password"


class Command(BaseCommand):
    help = "Create the local 'admin' superuser when no superuser exists, and print how to log in."

    def handle(self, *args, **options):
        users = get_user_model().objects
        if not users.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            users.create_superuser("admin", "admin@localhost", password)
            PASSWORD_FILE.parent.mkdir(exist_ok=True)
            PASSWORD_FILE.write_text(password)
            PASSWORD_FILE.chmod(0o600)
        if PASSWORD_FILE.exists() and users.filter(username="admin").exists():
            login = f"user admin, password {PASSWORD_FILE.read_text().strip()}"
        else:
            login = "your superuser (python manage.py createsuperuser makes one)"
        address = os.environ.get("LPS_WEB_BIND", "127.0.0.1:8000")
        self.stdout.write(f"LPS admin: http://{address}/admin/ — log in as {login}")
