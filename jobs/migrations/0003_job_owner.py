# A job's owner as a real, indexed column (until now only the API's payload key "client_id"), and SEARCH dedupe
# keys that name their owner: "search:<client>:<product code>", so that two shops' SKU-1 are two jobs.
#
# Not atomic: the indexes are built CONCURRENTLY so that migrating a live queue never locks the job table against
# workers, and the backfill runs as its own statement before them (so each index is built once, over final values).

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models

# Every job whose payload names its client gets that client as owner (SEARCH jobs from the API, and the OUTBOX
# jobs their searches enqueued).
BACKFILL_OWNER_SQL = """
UPDATE job SET owner_id = (payload ->> 'client_id')::bigint
WHERE owner_id IS NULL AND jsonb_typeof(payload -> 'client_id') = 'number'
"""

# The old global key "search:<code>" becomes "search:<client>:<code>" on every job that may still be active or
# requeued (DONE jobs never take part in dedupe again and keep theirs).
REKEY_SEARCH_SQL = """
UPDATE job SET dedupe_key = 'search:' || owner_id || ':' || (payload ->> 'product_code')
WHERE job_type = 1 AND status IN (1, 2, 4) AND owner_id IS NOT NULL
  AND dedupe_key = 'search:' || (payload ->> 'product_code')
"""


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("jobs", "0002_job_search_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="owner_id",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        # varchar(200) → varchar(255): PostgreSQL neither rewrites the table nor rebuilds its indexes for this.
        migrations.AlterField(
            model_name="job",
            name="dedupe_key",
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.RunSQL(BACKFILL_OWNER_SQL, migrations.RunSQL.noop),
        migrations.RunSQL(REKEY_SEARCH_SQL, migrations.RunSQL.noop),
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(fields=["owner_id", "-created_at"], name="job_owner_created_idx"),
        ),
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(fields=["owner_id", "status", "-created_at"], name="job_owner_status_created_idx"),
        ),
    ]
