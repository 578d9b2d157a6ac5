"""The corrections endpoints through the real Django stack and database (SPEC §8, §10): who may correct what,
what a correction does to its job's answer, and bad input answered with an envelope that writes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from api import keys
from api.codes import ResultCode
from corrections.models import Correction, PriceReport
from jobs import queue
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from negative_cache import cache
from tests.api.conftest import Caller
from tests.corrections.searches import NAME, PAGE, finished_search, search_result

pytestmark = pytest.mark.django_db

PAGE_TRAP = "OK 갤럭시 버즈3 프로 SM-R630 (trap)"
REJECT_TRAP = {"marketplace": "coupang", "product_id": "101", "same_product": False, "note": "a knock-off"}


@pytest.fixture
def shops(client):
    a, b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    return (a, Caller(client, a.api_key)), (b, Caller(client, b.api_key))


def corrections_of(job_id) -> str:
    return f"/v1/lps/jobs/{job_id}/corrections"


def test_rejecting_the_job_s_lowest_re_answers_it_from_the_listings_it_judged_and_records_the_change(shops):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)

    response = as_shop.post(corrections_of(job_id), REJECT_TRAP)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["result"], body["created"], body["changed"]) == (0, True, True)
    assert (body["previous"]["lowest"]["price"], body["current"]["lowest"]["price"]) == (99_000, 219_000)
    correction = body["correction"]
    assert (correction["scope"], correction["made_by"], correction["note"]) == ("client", "client", "a knock-off")
    assert (correction["product_code"], correction["title"], correction["price"]) == ("SKU-1", PAGE_TRAP, 99_000)
    result = as_shop.get(f"/v1/lps/jobs/{job_id}").json()["job"]["result"]
    assert (result["outcome"], result["lowest"]["price"], result["lowest"]["product_id"]) == ("found", 219_000, "102")
    trap = next(v for v in result["rounds"][0]["verdicts"] if v["product_id"] == "101")
    assert (trap["same_product"], trap["source"]) == (False, "correction")
    (change,) = result["corrections"]
    assert (change["correction_id"], change["previous"]["lowest"]["price"]) == (correction["correction_id"], 99_000)
    # No callback_url on this search: nothing to deliver.
    assert not Job.objects.filter(job_type=JobType.OUTBOX).exists()


def test_posting_the_same_listing_again_updates_the_one_correction(shops):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)
    as_shop.post(corrections_of(job_id), REJECT_TRAP)

    again = as_shop.post(corrections_of(job_id), {**REJECT_TRAP, "same_product": True, "note": "it was genuine"})

    assert again.status_code == 201
    assert (again.json()["created"], again.json()["changed"]) == (False, True)
    row = Correction.objects.get()
    assert (row.same_product, row.note) == (True, "it was genuine")
    assert as_shop.get(f"/v1/lps/jobs/{job_id}").json()["job"]["result"]["lowest"]["price"] == 99_000


def test_confirming_an_uncertain_listing_makes_it_count_and_forgets_the_product_s_not_found(shops):
    (shop, as_shop), _ = shops
    only_uncertain = [listing for listing in PAGE if listing.product_id in ("103", "104")]

    job_id = finished_search(shop.client.pk, result=search_result(only_uncertain))
    key = cache.key_for(product_name=NAME)
    assert cache.lookup(key) is None, "a not_found with review items is not remembered for every shop"
    # An earlier search's not_found, one nothing doubted, is what a confirmation must forget.
    cache.remember(key, ttl=timedelta(hours=24), reason="an earlier not_found")

    body = as_shop.post(corrections_of(job_id), {"marketplace": "coupang", "product_id": "104",
                                                 "same_product": True}).json()  # fmt: skip

    assert (body["previous"], body["current"]["outcome"]) == ({"outcome": "not_found"}, "found")
    assert body["current"]["lowest"]["price"] == 189_000
    assert cache.lookup(key) is None


def test_another_client_s_job_is_not_found_and_nothing_is_written(shops):
    (shop_a, _), (_, as_b) = shops
    job_id = finished_search(shop_a.client.pk)

    response = as_b.post(corrections_of(job_id), REJECT_TRAP)

    assert (response.status_code, response.json()["result"]) == (404, ResultCode.LPS_JOB_NOT_FOUND)
    assert as_b.post(f"/v1/lps/jobs/{job_id}/reports", {}).status_code == 404
    assert not Correction.objects.exists()
    assert not PriceReport.objects.exists()


def test_an_operator_corrects_any_job_and_only_an_operator_may_correct_for_every_client(shops, as_operator):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)

    refused = as_shop.post(corrections_of(job_id), {**REJECT_TRAP, "scope": "global"})
    made = as_operator.post(corrections_of(job_id), {**REJECT_TRAP, "scope": "global"})

    assert (refused.status_code, refused.json()["result"], refused.json()["field"]) == (
        403,
        ResultCode.HTTP_FORBIDDEN,
        "scope",
    )
    assert made.status_code == 201
    assert (made.json()["correction"]["scope"], made.json()["correction"]["made_by"]) == ("global", "operator")
    assert Correction.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"product_id": "101", "same_product": False}, "marketplace"),
        ({"marketplace": "ebay", "product_id": "101", "same_product": False}, "marketplace"),
        ({"marketplace": "coupang", "same_product": False}, "product_id"),
        ({"marketplace": "coupang", "product_id": "", "same_product": False}, "product_id"),
        ({"marketplace": "coupang", "product_id": 101, "same_product": False}, "product_id"),
        ({"marketplace": "coupang", "product_id": "101"}, "same_product"),
        ({"marketplace": "coupang", "product_id": "101", "same_product": "no"}, "same_product"),
        ({"marketplace": "coupang", "product_id": "101", "same_product": 0}, "same_product"),
        ({"marketplace": "coupang", "product_id": "101", "same_product": False, "note": "a\x00b"}, "note"),
        ({"marketplace": "coupang", "product_id": "101", "same_product": False, "note": "x" * 2001}, "note"),
        ({"marketplace": "coupang", "product_id": "101", "same_product": False, "scope": "all"}, "scope"),
        ({"marketplace": "coupang", "product_id": "999", "same_product": False}, "product_id"),
        ({"marketplace": "naver", "product_id": "101", "same_product": False}, "product_id"),
    ],
)
def test_bad_input_is_an_envelope_error_naming_the_field_and_writes_nothing(shops, body, field):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)
    before = Job.objects.get(job_id=job_id).result

    response = as_shop.post(corrections_of(job_id), body)

    assert response.status_code == 400, response.content
    assert (response.json()["result"], response.json()["field"]) == (ResultCode.INVALID_REQUEST_DATA, field)
    assert not Correction.objects.exists()
    assert Job.objects.get(job_id=job_id).result == before


def test_a_body_that_is_not_json_or_not_an_object_writes_nothing(shops):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)

    not_json = as_shop.post(corrections_of(job_id), raw="{not json")
    a_list = as_shop.post(corrections_of(job_id), [REJECT_TRAP])

    assert (not_json.status_code, not_json.json()["result"]) == (400, ResultCode.JSON_PARSE_ERROR)
    assert (a_list.status_code, a_list.json()["result"]) == (400, ResultCode.INVALID_REQUEST_DATA)
    assert not Correction.objects.exists()


def test_a_job_that_is_not_a_finished_search_cannot_be_corrected(shops):
    (shop, as_shop), _ = shops
    pending = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "P", "product_name": NAME},
                                         owner_id=shop.client.pk)).job_id  # fmt: skip

    response = as_shop.post(corrections_of(pending), REJECT_TRAP)
    report = as_shop.post(f"/v1/lps/jobs/{pending}/reports", {"note": "wrong"})

    assert (response.status_code, response.json()["result"]) == (409, ResultCode.LPS_JOB_NOT_FINISHED)
    assert (report.status_code, report.json()["result"]) == (409, ResultCode.LPS_JOB_NOT_FINISHED)
    assert Job.objects.get(job_id=pending).status == JobStatus.PENDING
    assert not Correction.objects.exists()
    assert not PriceReport.objects.exists()


def test_a_client_lists_and_deletes_only_its_own_corrections(shops, as_operator):
    (shop_a, as_a), (shop_b, as_b) = shops
    mine = as_a.post(corrections_of(finished_search(shop_a.client.pk)), REJECT_TRAP).json()["correction"]
    theirs = as_b.post(corrections_of(finished_search(shop_b.client.pk)), REJECT_TRAP).json()["correction"]

    listed = as_a.get("/v1/lps/corrections").json()
    refused = as_a.client.delete(f"/v1/lps/corrections/{theirs['correction_id']}", headers=as_a.headers())
    deleted = as_a.client.delete(f"/v1/lps/corrections/{mine['correction_id']}", headers=as_a.headers())

    assert (listed["total"], [c["correction_id"] for c in listed["corrections"]]) == (1, [mine["correction_id"]])
    assert (refused.status_code, refused.json()["result"]) == (404, ResultCode.LPS_CORRECTION_NOT_FOUND)
    assert (deleted.status_code, deleted.json()) == (200, {"result": 0, "correction_id": mine["correction_id"]})
    assert list(Correction.objects.values_list("pk", flat=True)) == [theirs["correction_id"]]
    assert as_operator.get("/v1/lps/corrections").json()["total"] == 1
    assert as_a.get("/v1/lps/corrections", page_size=0).status_code == 400


def test_a_price_report_names_no_listing_and_joins_the_operators_queue(shops):
    (shop, as_shop), _ = shops
    job_id = finished_search(shop.client.pk)

    response = as_shop.post(f"/v1/lps/jobs/{job_id}/reports", {"note": "our own store sells it for 250,000"})

    assert response.status_code == 201, response.content
    report = response.json()["report"]
    assert (report["status"], report["reported_price"], report["job_id"]) == ("open", 99_000, str(job_id))
    row = PriceReport.objects.get()
    assert (row.client_id, row.product_code, row.made_by) == (shop.client.pk, "SKU-1", "client")


def test_other_methods_on_the_corrections_paths_are_405_in_the_envelope(shops):
    (_, as_shop), _ = shops

    on_job = as_shop.client.put("/v1/lps/jobs/00000000-0000-0000-0000-000000000000/corrections")
    on_row = as_shop.client.get("/v1/lps/corrections/1", headers=as_shop.headers())

    assert (on_job.status_code, on_job.json()["result"], on_job["Allow"]) == (405, ResultCode.HTTP_METHOD_NOT_ALLOWED,
                                                                               "POST")  # fmt: skip
    assert (on_row.status_code, on_row["Allow"]) == (405, "DELETE")
