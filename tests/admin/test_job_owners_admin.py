"""Whose jobs: the job list shows each job's client and filters by it; an API client's page links to its jobs."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from api import keys
from jobs import queue
from jobs.models import Job
from lps_site.job_types import JobType
from search.models import Product
from tests.admin.test_jobs_admin import CHANGELIST, listed_ids

pytestmark = pytest.mark.django_db


def job_of(client_id: int | None, code: str, name: str) -> str:
    job = queue.enqueue(
        queue.NewJob(JobType.SEARCH, {"product_code": code, "product_name": name, "client_id": client_id},
                     owner_id=client_id)
    )  # fmt: skip
    return str(job.job_id)[:8]


@pytest.fixture
def two_shops_jobs():
    shop_a, shop_b = keys.issue_key("가게-A"), keys.issue_key("shop-B")
    return {
        "shop_a": shop_a.client,
        "shop_b": shop_b.client,
        "a": [job_of(shop_a.client.pk, "SKU-1", "갤럭시 버즈3 프로"), job_of(shop_a.client.pk, "SKU-2", "물티슈")],
        "b": [job_of(shop_b.client.pk, "SKU-1", "다이슨 V15")],
        "nobody": [job_of(None, "X-1", "운영자 작업")],
    }


def test_the_job_list_shows_each_jobs_client_by_name(admin_client, two_shops_jobs):
    html = admin_client.get(CHANGELIST).content.decode()

    cells = re.findall(r'<td class="field-owner">([^<]*)</td>', html)
    assert sorted(cells) == sorted(["가게-A", "가게-A", "shop-B", "-"])  # "-": the admin's empty value


def test_the_job_list_names_the_clients_of_a_page_in_one_query_whatever_its_length(admin_client, two_shops_jobs):
    with CaptureQueriesContext(connection) as few:
        admin_client.get(CHANGELIST)
    for number in range(20):
        job_of(two_shops_jobs["shop_b"].pk, f"MORE-{number}", "추가 상품")
    with CaptureQueriesContext(connection) as many:
        admin_client.get(CHANGELIST)

    assert len(many) == len(few)


def test_the_job_list_filters_by_client(admin_client, two_shops_jobs):
    shop_a, shop_b = two_shops_jobs["shop_a"], two_shops_jobs["shop_b"]

    page = admin_client.get(CHANGELIST).content.decode()
    of_a = admin_client.get(CHANGELIST, {"owner": shop_a.pk})
    of_b = admin_client.get(CHANGELIST, {"owner": shop_b.pk})

    assert f'href="?owner={shop_a.pk}"' in page
    assert "By client" in page
    assert listed_ids(of_a) == set(two_shops_jobs["a"])
    assert listed_ids(of_b) == set(two_shops_jobs["b"])
    assert listed_ids(admin_client.get(CHANGELIST, {"owner": "not-a-number"})) == set()


def test_an_api_clients_page_and_row_link_to_its_jobs(admin_client, two_shops_jobs):
    shop_a = two_shops_jobs["shop_a"]
    link = f"{CHANGELIST}?owner={shop_a.pk}"

    page = admin_client.get(reverse("admin:api_apiclient_change", args=[shop_a.pk])).content.decode()
    listing = admin_client.get(reverse("admin:api_apiclient_changelist")).content.decode()

    assert f'href="{link}"' in page
    assert f'href="{link}"' in listing
    assert listed_ids(admin_client.get(link)) == set(two_shops_jobs["a"])


def test_the_product_list_names_each_products_client_and_links_to_that_clients_jobs(admin_client, two_shops_jobs):
    shop_a, shop_b = two_shops_jobs["shop_a"], two_shops_jobs["shop_b"]
    mine = Product.objects.create(client_id=shop_a.pk, product_code="SKU-1", product_name="갤럭시 버즈3 프로")
    Product.objects.create(client_id=shop_b.pk, product_code="SKU-1", product_name="다이슨 V15")

    listing = admin_client.get(reverse("admin:search_product_changelist")).content.decode()
    page = admin_client.get(reverse("admin:search_product_change", args=[mine.pk])).content.decode()

    assert sorted(re.findall(r'<td class="field-client">([^<]*)</td>', listing)) == ["shop-B", "가게-A"]
    assert "가게-A" in page
    assert f"{CHANGELIST}?q=SKU-1&amp;owner={shop_a.pk}" in page
    assert listed_ids(admin_client.get(f"{CHANGELIST}?q=SKU-1&owner={shop_a.pk}")) == {two_shops_jobs["a"][0]}


def test_a_job_page_names_its_client_and_links_to_the_clients_jobs(admin_client, two_shops_jobs):
    shop_b = two_shops_jobs["shop_b"]
    (job,) = Job.objects.filter(owner_id=shop_b.pk)

    page = admin_client.get(reverse("admin:jobs_job_change", args=[job.job_id])).content.decode()

    assert f'<a href="{CHANGELIST}?owner={shop_b.pk}">shop-B</a>' in page
