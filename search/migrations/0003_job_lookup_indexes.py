"""Search's indexes on the queue's job table: the admin's and the operator API's job search and outcome filter as
index lookups (search/job_lookups.py).

- job_product_code_idx: product code exact (payload -> 'product_code' = jsonb, Django's payload__product_code);
- job_product_name_trgm_idx: product name icontains (trigrams of UPPER(payload ->> 'product_name'), what
  payload__product_name__icontains compiles to);
- job_outcome_created_idx: the outcome filter, newest first.

jobs migration 0002 created them when the queue still declared them; this one owns them since (jobs migration
0006 dropped them from the queue's state only). IF NOT EXISTS leaves an existing database's indexes untouched and
gives a fresh one the same definitions; CONCURRENTLY never locks the job table against workers.
"""

from django.db import migrations

INDEXES = {
    "job_product_code_idx": "job USING btree ((payload -> 'product_code'))",
    "job_product_name_trgm_idx": "job USING gin (upper(payload ->> 'product_name') gin_trgm_ops)",
    "job_outcome_created_idx": "job USING btree ((result ->> 'outcome'), created_at DESC)",
}


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("search", "0002_product_per_client"),
        # The indexes' first migration, and the pg_trgm extension it installed.
        ("jobs", "0006_job_product_indexes_to_search"),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {definition}",
            reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {name}",
        )
        for name, definition in INDEXES.items()
    ]
