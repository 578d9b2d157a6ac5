#!/usr/bin/env python3
"""Django's command-line utility for LPS."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
    if not os.environ.get("DATABASE_URL"):
        # No database configured: every local process shares the project's embedded PostgreSQL.
        from lps_site import embedded_pg

        os.environ["DATABASE_URL"] = embedded_pg.start_detached()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
