"""The Naver Shopping adapter against the fake Search API (a real local server), and the daily quota in the database."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection

from search import naver_quota
from search.exceptions import NaverFailed, NaverRejected
from search.models import NaverCallDay
from search.sources.naver import NaverCredentials, NaverSource, clean_title, parse_items
from tests.fakes.naver_api import CLIENT_ID, CLIENT_SECRET

QUERY = "삼성 갤럭시 버즈3 프로"


def source(fake_naver, *, timeout=5.0, secret=CLIENT_SECRET):
    return NaverSource(base_url=fake_naver.base_url, credentials=NaverCredentials(CLIENT_ID, secret), timeout=timeout)


def test_titles_lose_their_highlight_tags_and_entities_are_unescaped():
    assert (
        clean_title("<b>삼성</b> 갤럭시 &amp; <b>버즈3</b> &quot;정품&quot; &#39;A&#39;")
        == "삼성 갤럭시 & 버즈3 \"정품\" 'A'"
    )


def test_a_call_sends_the_keys_the_query_and_exclude_and_reads_every_field(fake_naver):
    fake_naver.set_results(
        QUERY,
        [
            {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 197_000, "hprice": 289_000, "product_type": 1},
            {
                "title": "삼성 갤럭시 버즈3 프로 & 케이스",
                "price": 203_500,
                "mall": "하이마트",
                "product_id": "123",
            },
        ],
    )
    naver = source(fake_naver)
    try:
        page = naver.search(QUERY)
    finally:
        naver.close()

    (request,) = fake_naver.requests
    assert request.params == {
        "query": QUERY,
        "display": "40",
        "start": "1",
        "sort": "sim",
        "exclude": "used:rental:cbshop",
    }
    assert request.headers["x-naver-client-id"] == CLIENT_ID
    assert request.headers["x-naver-client-secret"] == CLIENT_SECRET
    catalog, offer = page.listings
    assert (catalog.title, catalog.price, catalog.seller, catalog.product_type) == (
        "삼성전자 갤럭시 버즈3 프로 SM-R630",
        197_000,
        "네이버",
        1,
    )
    assert catalog.url.startswith("https://search.shopping.naver.com/catalog/")
    assert (offer.title, offer.seller, offer.product_id, offer.marketplace) == (
        "삼성 갤럭시 버즈3 프로 & 케이스",
        "하이마트",
        "123",
        "naver",
    )
    assert page.bytes > 0
    assert not page.empty


def test_only_new_current_offers_are_candidates_even_when_naver_ignores_exclude(fake_naver):
    fake_naver.ignore_exclude = True
    fake_naver.set_results(
        QUERY,
        [{"title": f"버즈3 프로 타입 {kind}", "price": 100_000 + kind, "product_type": kind} for kind in range(1, 13)],
    )
    naver = source(fake_naver)
    try:
        page = naver.search(QUERY)
    finally:
        naver.close()

    assert len(page.listings) == 12
    assert sorted(listing.product_type for listing in page.candidates) == [1, 2, 3]


def test_without_ignoring_exclude_the_fake_drops_used_rental_and_cross_border_items(fake_naver):
    fake_naver.set_results(
        QUERY,
        [
            {"title": "버즈3 프로 새상품", "price": 200_000},
            {"title": "버즈3 프로 중고", "price": 90_000, "product_type": 5},
            {"title": "버즈3 프로 렌탈", "price": 9_900, "rental": True},
            {"title": "버즈3 프로 해외직구", "price": 150_000, "cbshop": True},
        ],
    )
    naver = source(fake_naver)
    try:
        page = naver.search(QUERY)
    finally:
        naver.close()

    assert [listing.title for listing in page.listings] == ["버즈3 프로 새상품"]


def test_an_item_without_a_price_is_not_a_listing_and_a_page_of_only_such_items_is_a_failure():
    listings, unread = parse_items({"items": [{"title": "a", "link": "https://x", "lprice": "0"}, "junk"]})
    assert (listings, unread) == ([], 2)


def test_an_empty_answer_is_a_healthy_empty_page(fake_naver):
    naver = source(fake_naver)
    try:
        page = naver.search("아무것도 없는 검색어")
    finally:
        naver.close()
    assert page.empty
    assert page.listings == []


@pytest.mark.parametrize(
    ("kind", "status", "code"), [("http_401", 401, "024"), ("http_403", 403, "024"), ("se01", 400, "SE01")]
)
def test_rejected_credentials_or_requests_raise_a_non_retryable_error_naming_the_code(fake_naver, kind, status, code):
    fake_naver.set_behaviour(kind)
    naver = source(fake_naver)
    try:
        with pytest.raises(NaverRejected) as caught:
            naver.search(QUERY)
    finally:
        naver.close()
    assert caught.value.retryable is False
    assert (caught.value.http_status, caught.value.error_code) == (status, code)
    assert code in str(caught.value)


def test_a_wrong_secret_is_rejected_by_the_fake_like_naver_does(fake_naver):
    naver = source(fake_naver, secret="wrong")
    try:
        with pytest.raises(NaverRejected, match="NAVER_CLIENT_SECRET"):
            naver.search(QUERY)
    finally:
        naver.close()


@pytest.mark.parametrize(("kind", "status"), [("http_429", 429), ("http_500", 500), ("not_json", 502)])
def test_rate_limits_server_errors_and_garbage_are_retryable_failures(fake_naver, kind, status):
    fake_naver.set_behaviour(kind)
    naver = source(fake_naver)
    try:
        with pytest.raises(NaverFailed) as caught:
            naver.search(QUERY)
    finally:
        naver.close()
    assert caught.value.retryable is True
    assert caught.value.http_status == status


def test_a_slow_answer_past_the_timeout_is_a_retryable_failure_and_is_not_retried_by_the_client(fake_naver):
    fake_naver.set_behaviour("slow", delay_seconds=5)
    naver = source(fake_naver, timeout=0.3)
    try:
        with pytest.raises(NaverFailed, match="did not answer"):
            naver.search(QUERY)
    finally:
        naver.close()
    assert len(fake_naver.requests) == 1


# --- The daily quota -------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_quota_counts_calls_and_refuses_the_one_past_the_limit():
    taken = [naver_quota.take_call(limit=3) for _ in range(4)]

    assert [t.calls for t in taken[:3]] == [1, 2, 3]
    assert isinstance(taken[3], naver_quota.Spent)
    assert "3 calls is spent" in taken[3].reason
    assert naver_quota.calls_today() == 3


@pytest.mark.django_db
def test_the_quota_day_is_the_date_in_korea_so_it_turns_at_15_utc():
    before = datetime(2026, 12, 1, 14, 59, tzinfo=UTC)
    after = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

    assert isinstance(naver_quota.take_call(limit=1, now=before), naver_quota.Taken)
    spent = naver_quota.take_call(limit=1, now=before)
    assert isinstance(spent, naver_quota.Spent)
    assert spent.resets_at == after
    assert spent.seconds_left(before) == 60
    assert isinstance(naver_quota.take_call(limit=1, now=after), naver_quota.Taken)
    assert sorted(NaverCallDay.objects.values_list("day", "calls")) == [
        (before.astimezone(naver_quota.KST).date(), 1),
        (after.astimezone(naver_quota.KST).date(), 1),
    ]


@pytest.mark.django_db(transaction=True)
def test_workers_racing_for_the_last_calls_never_take_more_than_the_limit():
    results: list[object] = []
    lock = threading.Lock()

    def take():
        try:
            for _ in range(10):
                outcome = naver_quota.take_call(limit=25)
                with lock:
                    results.append(outcome)
        finally:
            connection.close()

    threads = [threading.Thread(target=take) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    taken = [r for r in results if isinstance(r, naver_quota.Taken)]
    assert len(taken) == 25
    assert sorted(t.calls for t in taken) == list(range(1, 26))
    assert naver_quota.calls_today() == 25
