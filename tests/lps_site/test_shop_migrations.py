"""The migrations that made jobs, products and the negative cache per shop, run on rows of the old shape: owners
from the payload, per-client dedupe keys, products per client, and cache rows keyed by product identity."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from jobs.models import Job
from negative_cache import cache
from negative_cache.models import NegativeCacheEntry
from search.models import Product

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("jobs", "0002_job_search_indexes"), ("search", "0001_initial"), ("negative_cache", "0001_initial")]


def migrate(targets) -> object:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def test_old_rows_get_owners_per_client_keys_products_per_client_and_identity_cache_keys():
    old = migrate(BEFORE)
    try:
        old_job, old_product = old.get_model("jobs", "Job"), old.get_model("search", "Product")
        old_snapshot, old_entry = (
            old.get_model("search", "PriceSnapshot"),
            old.get_model("negative_cache", "NegativeCacheEntry"),
        )
        active = old_job.objects.create(
            job_type=1,
            status=1,
            dedupe_key="search:SKU-1",
            payload={"product_code": "SKU-1", "product_name": "버즈3", "client_id": 5},
        )
        done = old_job.objects.create(
            job_type=1,
            status=3,
            dedupe_key="search:SKU-2",
            payload={"product_code": "SKU-2", "product_name": "물티슈", "client_id": 5},
        )
        outbox = old_job.objects.create(job_type=2, status=1, dedupe_key="outbox:x", payload={"client_id": 6})
        ownerless = old_job.objects.create(job_type=1, status=1, dedupe_key="search:X", payload={"product_code": "X"})
        product = old_product.objects.create(
            product_code="SKU-1",
            product_name="갤럭시 버즈3 프로",
            model_code="SM-R630",
            brand="삼성",
            last_searched_at=timezone.now(),
        )
        old_snapshot.objects.create(product=product, job_id=active.job_id, outcome="not_found")
        until = timezone.now() + timedelta(hours=3)
        for key in ("query:galaxy buds3 pro", "code:SKU-1", "code:GONE"):
            old_entry.objects.create(key=key, until=until, reason="3 rounds")
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    rows = {job.job_id: job for job in Job.objects.all()}
    assert (rows[active.job_id].owner_id, rows[active.job_id].dedupe_key) == (5, "search:5:SKU-1")
    assert (rows[done.job_id].owner_id, rows[done.job_id].dedupe_key) == (5, "search:SKU-2")
    assert rows[outbox.job_id].owner_id == 6
    assert (rows[ownerless.job_id].owner_id, rows[ownerless.job_id].dedupe_key) == (None, "search:X")
    assert Product.objects.get().client_id == 5
    by_name = cache.key_for(product_name="galaxy buds3 pro").key
    by_product = cache.key_for(product_name="갤럭시 버즈3 프로", model_code="SM-R630", brand="삼성").key
    entries = {entry.key: entry for entry in NegativeCacheEntry.objects.all()}
    assert set(entries) == {by_name, by_product}
    assert (entries[by_product].product_name, entries[by_product].model_code) == ("갤럭시 버즈3 프로", "SM-R630")
    assert entries[by_name].until == until
