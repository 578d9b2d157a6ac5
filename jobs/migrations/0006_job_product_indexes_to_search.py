"""The job table's indexes for looking up search jobs (a product code, trigrams of a product name, a search's
outcome) are search's knowledge: their declaration moves to search (search migration 0003), which owns them from
now on. Here they leave Django's state only; the database keeps them untouched."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0005_job_last_error_kind"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="job", name="job_product_code_idx"),
                migrations.RemoveIndex(model_name="job", name="job_product_name_trgm_idx"),
                migrations.RemoveIndex(model_name="job", name="job_outcome_created_idx"),
            ],
        ),
    ]
