"""`manage.py search`: the pipeline in-process for one product, its result JSON alone on stdout."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from negative_cache.models import NegativeCacheEntry
from search.models import PriceSnapshot, Product
from tests.fakes.marketplace import DEMO_CATALOGUE

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NAME = "다이슨 V15 디텍트 무선청소기 SV47"
LISTINGS = [
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 골드", "price": 1_049_000, "rocket": True, "seller": "다이슨"},
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 니켈", "price": 989_000, "original_price": 1_290_000},
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 (광고)", "price": 799_000, "ad": True},
    {"title": "다이슨 V15 호환 필터 교체용", "price": 19_900},
]


def run_command(*args: str, marketplace) -> subprocess.CompletedProcess:
    """Run `manage.py search` as its own process on the test database and the fake marketplace."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "LPS_COUPANG_URL": marketplace.base_url,
        "OPENAI_API_KEY": "",
        "LPS_NAVIGATION_TIMEOUT_SECONDS": "5",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "search", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_command_prints_the_result_json_alone_on_stdout_and_logs_to_stderr(fake_marketplace):
    fake_marketplace.set_results(NAME, LISTINGS)

    done = run_command(
        NAME, "--product-code", "DY-15", "--model-code", "SV47", "--brand", "다이슨", marketplace=fake_marketplace
    )

    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip().splitlines()) == 1
    result = json.loads(done.stdout)
    assert result["outcome"] == "found"
    assert (result["lowest"]["price"], result["lowest"]["title"]) == (989_000, LISTINGS[1]["title"])
    assert [r["kind"] for r in result["rounds"]] == ["original"]
    assert set(result["metrics"]["cost"]) == {"ai_usd", "proxy_usd", "total_usd"}
    assert "search.pipeline" in done.stderr
    assert fake_marketplace.search_queries == [NAME]
    assert PriceSnapshot.objects.get(product__product_code="DY-15").price == 989_000


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_technical_failure_exits_non_zero_with_a_clear_message_and_caches_nothing(fake_marketplace):
    fake_marketplace.set_behaviour(None, "http_403")

    done = run_command(NAME, "--product-code", "DY-15", marketplace=fake_marketplace)

    assert done.returncode != 0
    assert done.stdout == ""
    assert "search failed (Blocked, nothing cached)" in done.stderr
    assert not NegativeCacheEntry.objects.exists()
    assert not Product.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db
def test_a_not_found_is_printed_then_answered_from_the_cache_without_a_request(fake_coupang, settings):
    settings.OPENAI_API_KEY = ""
    first, second = io.StringIO(), io.StringIO()

    call_command("search", "세상에 없는 상품 XYZ-0", stdout=first)
    searches_after_first = len(fake_coupang.search_queries)
    call_command("search", "  세상에 없는   상품 xyz-0 ", stdout=second)

    assert json.loads(first.getvalue())["outcome"] == "not_found"
    assert json.loads(first.getvalue())["cached"] is False
    assert json.loads(second.getvalue())["cached"] is True
    assert len(fake_coupang.search_queries) == searches_after_first
    assert not Product.objects.exists()


@pytest.mark.django_db
def test_a_blank_product_name_is_refused_before_any_browser_starts(fake_coupang):
    with pytest.raises(CommandError, match="blank"):
        call_command("search", "   ", stdout=io.StringIO())

    assert fake_coupang.requests == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "options",
    [
        pytest.param((), id="the-code-alone"),
        pytest.param(("--model-code", "SM-R510"), id="with-model-code"),
        pytest.param(("--brand", "삼성전자"), id="with-brand"),
    ],
)
def test_a_product_named_by_its_model_code_alone_is_found_by_the_code_whatever_the_title_adds(
    fake_marketplace, options
):
    # The demo market's SM-R510 (tests/fakes/marketplace.py): the title adds a brand and 프로 the name never says.
    fake_marketplace.set_results("SM-R510", DEMO_CATALOGUE["SM-R510"])

    done = run_command("SM-R510", "--product-code", "BUDS2PRO", *options, marketplace=fake_marketplace)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "found", result
    assert result["lowest"]["price"] == 129_000
    assert not NegativeCacheEntry.objects.exists()
