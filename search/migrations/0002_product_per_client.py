# A product is one client's SKU: (client_id, product_code), no longer product_code alone.
#
# Existing products take the client of their most recent search's job (the job's owner, jobs migration 0003);
# a product whose jobs were already pruned stays without a client. Where two shops shared a code before this
# migration their history is one row and stays so: it cannot be told apart after the fact.

from django.db import migrations, models

BACKFILL_CLIENT_SQL = """
UPDATE search_product AS p SET client_id = latest.owner_id
FROM (
    SELECT DISTINCT ON (s.product_id) s.product_id, j.owner_id
    FROM search_price_snapshot AS s JOIN job AS j ON j.job_id = s.job_id
    WHERE j.owner_id IS NOT NULL
    ORDER BY s.product_id, s.captured_at DESC, s.id DESC
) AS latest
WHERE p.id = latest.product_id
"""


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0001_initial"),
        ("jobs", "0003_job_owner"),
    ]

    operations = [
        migrations.AddField(
            model_name="product",
            name="client_id",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunSQL(BACKFILL_CLIENT_SQL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="product",
            name="product_code",
            field=models.CharField(max_length=200),
        ),
        migrations.AddIndex(
            model_name="product",
            index=models.Index(fields=["product_code"], name="product_code_idx"),
        ),
        migrations.AddConstraint(
            model_name="product",
            constraint=models.UniqueConstraint(
                fields=("client_id", "product_code"), name="product_client_code_uq", nulls_distinct=False
            ),
        ),
    ]
