"""The review queue (corrections/review_queue.py, review_admin.py): a search through the real handler, crawler and
rules judge leaves its cheaper uncertain listing as an open review item; an operator's one click in the admin
queue confirms it (the job re-answered at its price) or rejects it (the answer kept), and a shop's own correction
through the API closes it too. The admin is driven through Django's test client as a logged-in operator."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from api import keys
from corrections.metrics import ReviewCollector
from corrections.models import Author, ReviewItem
from jobs import queue
from jobs.handlers import JobContext
from jobs.models import Job
from lps_site.job_types import JobType
from search import handler
from tests.api.conftest import Caller
from tests.search.test_review import CASE, HEADPHONES, SURE, UNSURE

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

QUEUE = "admin:corrections_reviewitem_changelist"


@pytest.fixture
def marketplace(fake_coupang):
    fake_coupang.set_results(HEADPHONES, [SURE, UNSURE, CASE])
    yield fake_coupang
    handler.close_shared_crawler()


def searched(client_id: int, code: str = "WH-5", **product) -> str:
    """A SEARCH job of `client_id` run by the real handler and completed through the queue: its job id."""
    product = product or {"product_name": HEADPHONES, "model_code": "WH-1000XM5"}
    payload = {"product_code": code, **product, "client_id": client_id}
    queue.enqueue(queue.NewJob(JobType.SEARCH, payload, dedupe_key=f"search:{client_id}:{code}", owner_id=client_id))
    (job,) = queue.claim("test-worker", job_types=[JobType.SEARCH])
    result = handler.run_search(job, JobContext(worker_id="test-worker", deadline=time.monotonic() + 120))
    assert isinstance(queue.complete(job, result), queue.Moved)
    return str(job.job_id)


def awaiting_review() -> float:
    (family,) = ReviewCollector().collect()
    return family.samples[0].value


def settle(admin_client, item: ReviewItem, same: str):
    return admin_client.post(
        reverse("admin:corrections_reviewitem_settle", args=[item.pk]), {"same_product": same}, follow=True
    )


def test_the_queue_lists_open_items_oldest_first_by_client_and_a_confirm_re_answers_the_job_at_that_price(
    admin_client, marketplace
):
    shop, other = keys.issue_key("shop"), keys.issue_key("other shop")
    job_id = searched(shop.client.pk)
    searched(other.client.pk, code="OTHER-5")
    item = ReviewItem.objects.get(client_id=shop.client.pk)
    theirs = ReviewItem.objects.get(client_id=other.client.pk)
    assert (item.product_id, item.price, item.closed_at) == ("8001", 389_000, None)
    assert awaiting_review() == 2

    everyone = admin_client.get(reverse(QUEUE)).content.decode()
    mine = admin_client.get(reverse(QUEUE), {"client": str(shop.client.pk)}).content.decode()
    job_page = admin_client.get(reverse("admin:jobs_job_change", args=[job_id])).content.decode()
    clicked = settle(admin_client, item, "true")

    mine_url, theirs_url = (reverse("admin:corrections_reviewitem_settle", args=[row.pk]) for row in (item, theirs))
    assert everyone.count(mine_url) == 2  # both buttons
    assert everyone.index(mine_url) < everyone.index(theirs_url), "oldest first"
    assert mine_url in mine
    assert theirs_url not in mine
    assert "Awaiting review" in job_page
    assert UNSURE["title"] in job_page
    assert clicked.redirect_chain == [(reverse(QUEUE), 302)]
    assert "The job now answers ₩389,000" in clicked.content.decode()
    result = Job.objects.get(job_id=job_id).result
    assert (result["lowest"]["price"], result["lowest"]["product_id"], "review" in result) == (389_000, "8001", False)
    item.refresh_from_db()
    assert item.closed_at is not None
    assert (item.closed_by.made_by, item.closed_by.same_product) == (Author.OPERATOR, True)
    assert awaiting_review() == 1
    assert mine_url not in admin_client.get(reverse(QUEUE), {"client": str(shop.client.pk)}).content.decode()


def test_a_reject_from_the_queue_closes_the_item_and_keeps_the_answer(admin_client, marketplace):
    shop = keys.issue_key("shop")
    job_id = searched(shop.client.pk)
    item = ReviewItem.objects.get()

    settle(admin_client, item, "false")

    result = Job.objects.get(job_id=job_id).result
    assert (result["lowest"]["price"], "review" in result) == (429_000, False)
    item.refresh_from_db()
    assert (item.closed_at is not None, item.closed_by.same_product) == (True, False)
    assert awaiting_review() == 0


def test_a_confirm_that_lowers_the_answer_closes_the_items_no_longer_cheaper_than_it(admin_client, marketplace):
    dearer_unsure = {"title": "소니 노이즈캔슬링 블루투스 헤드폰 실버", "price": 399_000, "product_id": "8004"}
    marketplace.set_results(HEADPHONES, [SURE, UNSURE, dearer_unsure, CASE])
    job_id = searched(keys.issue_key("shop").client.pk)
    cheaper, dearer = ReviewItem.objects.order_by("price")
    assert (cheaper.price, dearer.price) == (389_000, 399_000)

    settle(admin_client, cheaper, "true")

    result = Job.objects.get(job_id=job_id).result
    assert (result["lowest"]["price"], "review" in result) == (389_000, False)
    dearer.refresh_from_db()
    assert (dearer.closed_at is not None, dearer.closed_by) == (True, None)
    assert "closed: the answer changed" in admin_client.get(reverse(QUEUE), {"state": "closed"}).content.decode()


def test_a_lowest_accepted_on_its_words_comes_with_its_fallback_and_a_reject_re_answers_the_job_at_it(
    admin_client, marketplace
):
    lantern = "노을 캠핑 랜턴 블랙"  # no model code: the rules accept these titles on their words, never surely
    marketplace.set_results(
        lantern,
        [
            {"title": "노을 캠핑 랜턴 블랙", "price": 30_000, "product_id": "9001"},
            {"title": "노을 캠핑 랜턴 블랙 [무료배송]", "price": 35_000, "product_id": "9002"},
        ],
    )
    job_id = searched(keys.issue_key("shop").client.pk, code="LANTERN", product_name=lantern)
    doubted, fallback = ReviewItem.objects.order_by("price")
    assert (doubted.price, fallback.price) == (30_000, 35_000)
    assert fallback.reason.startswith("the answer if the reported lowest is turned down")

    settle(admin_client, doubted, "false")

    result = Job.objects.get(job_id=job_id).result
    assert result["lowest"]["price"] == 35_000
    assert [item["price"] for item in result["review"]] == [35_000]  # the new answer, still a reading to confirm
    doubted.refresh_from_db(), fallback.refresh_from_db()
    assert (doubted.closed_at is not None, fallback.closed_at) == (True, None)


def test_a_shop_settles_its_own_item_through_the_corrections_api(client, marketplace):
    shop = keys.issue_key("shop")
    job_id = searched(shop.client.pk)

    response = Caller(client, shop.api_key).post(
        f"/v1/lps/jobs/{job_id}/corrections", {"marketplace": "coupang", "product_id": "8001", "same_product": True}
    )

    assert response.status_code == 201, response.content
    item = ReviewItem.objects.get()
    assert (item.closed_at is not None, item.closed_by.made_by) == (True, Author.CLIENT)
    assert Job.objects.get(job_id=job_id).result["lowest"]["price"] == 389_000


def test_the_metrics_scrape_counts_the_jobs_awaiting_review(client, marketplace):
    searched(keys.issue_key("shop").client.pk)
    operator = keys.issue_key("ops", operator=True)

    text = client.get("/metrics", headers={"Authorization": f"Bearer {operator.api_key}"}).content.decode()

    assert "lps_jobs_awaiting_review 1.0" in text


def test_a_click_without_saying_whether_it_is_the_product_writes_nothing(admin_client, marketplace):
    searched(keys.issue_key("shop").client.pk)
    item = ReviewItem.objects.get()

    clicked = settle(admin_client, item, "maybe")

    assert "Say whether the listing is the product." in clicked.content.decode()
    item.refresh_from_db()
    assert item.closed_at is None
