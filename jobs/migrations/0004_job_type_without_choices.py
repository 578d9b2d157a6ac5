"""job.job_type loses its choices: the job types are the apps' catalogue (lps_site/job_types.py), named by their
registration (jobs.handlers), so the queue's table no longer lists them. Choices live only in Django's state; the
column is untouched."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0003_job_owner"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="job", name="job_type", field=models.SmallIntegerField()),
            ],
        ),
    ]
