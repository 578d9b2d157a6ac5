"""job.last_error_kind: the kind of the last failure (an exception class name, LeaseExpired, Released) as data,
beside last_error's text, so that failures are counted by kind instead of matching the text's prefix.

The backfill is bounded: it reads the kind from the text's prefix only for the rows changed in the last hour (one
range of job_status_updated_idx per status), which is all that the ops snapshot counts by kind. Older rows keep a
NULL kind; their text still says it."""

from django.db import migrations, models

BACKFILL_SQL = """
UPDATE job
SET last_error_kind = substring(last_error FROM '^([A-Za-z_][A-Za-z0-9_]{0,99}):')
WHERE status IN (1, 2, 3, 4) AND updated_at > now() - interval '1 hour' AND last_error IS NOT NULL
"""


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0004_job_type_without_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="last_error_kind",
            field=models.CharField(blank=True, max_length=100, null=True),
        ),
        migrations.RunSQL(BACKFILL_SQL, reverse_sql=migrations.RunSQL.noop),
    ]
