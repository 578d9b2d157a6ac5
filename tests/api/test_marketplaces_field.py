"""The `marketplaces` field of a posted product: among the configured marketplaces, or a 400 that writes nothing."""

from __future__ import annotations

import pytest

from api.codes import ResultCode
from jobs.models import Job


@pytest.mark.django_db
def test_asking_for_naver_on_a_deployment_without_its_keys_is_refused_and_writes_nothing(as_shop, settings):
    settings.NAVER_CLIENT_ID = settings.NAVER_CLIENT_SECRET = ""
    body = {"products": [{"product_code": "A", "product_name": "버즈3", "marketplaces": ["coupang", "naver"]}]}

    response = as_shop.post("/v1/lps/search", body)

    assert response.status_code == 400
    refused = response.json()
    assert refused["result"] == ResultCode.INVALID_REQUEST_DATA
    assert refused["field"] == "products[0].marketplaces"
    assert "naver is not configured" in refused["error"]
    assert Job.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("marketplaces", [["amazon"], [], "naver"])
def test_an_unknown_or_empty_marketplace_list_is_refused_and_writes_nothing(as_shop, fake_naver, marketplaces):
    body = {"products": [{"product_code": "A", "product_name": "버즈3", "marketplaces": marketplaces}]}

    response = as_shop.post("/v1/lps/search", body)

    assert response.status_code == 400
    assert response.json()["field"].startswith("products[0].marketplaces")
    assert Job.objects.count() == 0


@pytest.mark.django_db
def test_a_deployment_with_naver_accepts_it_and_the_job_carries_the_choice(as_shop, fake_naver):
    body = {"products": [{"product_code": "A", "product_name": "버즈3", "marketplaces": ["naver", "naver"]}]}

    response = as_shop.post("/v1/lps/search", body)

    assert response.status_code == 202
    assert Job.objects.get().payload["marketplaces"] == ["naver"]
