# The admin's job search and outcome filter as index lookups (see Job.Meta.indexes). Built CONCURRENTLY so that
# migrating a live queue never locks the job table against workers.

import django.contrib.postgres.indexes
import django.db.models.fields.json
import django.db.models.functions.text
from django.contrib.postgres.operations import AddIndexConcurrently, TrigramExtension
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("jobs", "0001_initial"),
    ]

    operations = [
        TrigramExtension(),
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(
                django.db.models.fields.json.KeyTransform("product_code", "payload"), name="job_product_code_idx"
            ),
        ),
        AddIndexConcurrently(
            model_name="job",
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.indexes.OpClass(
                    django.db.models.functions.text.Upper(
                        django.db.models.fields.json.KeyTextTransform("product_name", "payload")
                    ),
                    name="gin_trgm_ops",
                ),
                name="job_product_name_trgm_idx",
            ),
        ),
        AddIndexConcurrently(
            model_name="job",
            index=models.Index(
                django.db.models.fields.json.KeyTextTransform("outcome", "result"),
                models.OrderBy(models.F("created_at"), descending=True),
                name="job_outcome_created_idx",
            ),
        ),
    ]
