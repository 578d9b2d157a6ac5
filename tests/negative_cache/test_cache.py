"""The negative cache against the real table: TTL, expiry, upsert, purge, and two writers racing."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from negative_cache import cache
from negative_cache.models import NegativeCacheEntry

pytestmark = pytest.mark.django_db


def expire(key: str) -> None:
    NegativeCacheEntry.objects.filter(key=key).update(until=timezone.now() - timedelta(seconds=1))


def test_the_key_is_the_product_identity_and_never_a_shops_product_code():
    key = cache.key_for(product_name="갤럭시 버즈3 프로", model_code="SM-R630", brand="삼성전자")

    assert key.key.startswith("product:")
    assert "SKU" not in key.key
    assert (key.product_name, key.model_code, key.brand) == ("갤럭시 버즈3 프로", "SM-R630", "삼성전자")
    assert key != cache.key_for(product_name="갤럭시 버즈3 프로", model_code="SM-R630")
    assert key.key != cache.key_for(product_name="갤럭시 버즈3 프로", model_code="SM-R510", brand="삼성전자").key


def test_names_differing_only_in_case_width_spacing_or_invisible_characters_share_one_key():
    plain = cache.key_for(product_name="galaxy buds3 pro", model_code="sm-r630", brand="samsung").key

    assert cache.key_for(product_name="  Galaxy\tＢＵＤＳ３  Pro ", model_code="SM-R630", brand="SAMSUNG").key == plain
    assert (
        cache.key_for(product_name="\ufeffgalaxy bu\u200bds3 pro", model_code="sm-r630", brand="samsung").key == plain
    )


def test_remembering_a_product_keeps_what_the_row_stands_for():
    key = cache.key_for(product_name="갤럭시 버즈3 프로", model_code="SM-R630", brand="삼성전자")

    cache.remember(key, ttl=timedelta(hours=24), reason="not_found after 3 rounds")

    entry = cache.lookup(key)
    assert (entry.key, entry.product_name, entry.model_code, entry.brand) == (
        key.key,
        "갤럭시 버즈3 프로",
        "SM-R630",
        "삼성전자",
    )
    assert str(entry) == "갤럭시 버즈3 프로 / SM-R630 / 삼성전자"


def test_a_remembered_key_is_found_until_its_ttl_runs_out():
    cache.remember("code:A", ttl=timedelta(hours=24), reason="not_found after 3 rounds")

    entry = cache.lookup("code:A")

    assert entry is not None
    assert entry.reason == "not_found after 3 rounds"
    assert timedelta(hours=23, minutes=59) < entry.until - timezone.now() <= timedelta(hours=24)


def test_an_expired_row_counts_as_absent():
    cache.remember("code:A", ttl=timedelta(hours=24))
    expire("code:A")

    assert cache.lookup("code:A") is None


def test_remembering_again_refreshes_an_expired_row_instead_of_failing():
    cache.remember("code:A", ttl=timedelta(hours=24), reason="first")
    expire("code:A")

    cache.remember("code:A", ttl=timedelta(hours=1), reason="second")

    entry = cache.lookup("code:A")
    assert entry is not None
    assert entry.reason == "second"
    assert NegativeCacheEntry.objects.filter(key="code:A").count() == 1


def test_forget_drops_the_row_so_the_next_search_runs_for_real():
    cache.remember("code:A", ttl=timedelta(hours=24))

    assert cache.forget("code:A") is True
    assert cache.lookup("code:A") is None
    assert cache.forget("code:A") is False


def test_purge_deletes_only_expired_rows_and_respects_its_limit():
    for key in ("code:old1", "code:old2", "code:old3", "code:fresh"):
        cache.remember(key, ttl=timedelta(hours=24))
    for key in ("code:old1", "code:old2", "code:old3"):
        expire(key)

    assert cache.purge_expired(limit=2) == 2
    assert cache.purge_expired(limit=2) == 1
    assert cache.purge_expired() == 0
    assert list(NegativeCacheEntry.objects.values_list("key", flat=True)) == ["code:fresh"]


@pytest.mark.django_db(transaction=True)
def test_two_workers_remembering_the_same_key_at_once_both_succeed_with_one_row():
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def remember(reason: str) -> None:
        try:
            barrier.wait(timeout=10)
            cache.remember("code:race", ttl=timedelta(hours=24), reason=reason)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=remember, args=(f"worker {n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert NegativeCacheEntry.objects.filter(key="code:race").count() == 1
    assert cache.lookup("code:race").reason.startswith("worker ")
