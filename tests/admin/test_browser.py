"""An operator's day in a real headless Chromium against a live server: the dashboard agrees with the database and
refreshes in place, DEAD jobs are found and requeued, a negative-cache row is deleted. Screenshots of the
dashboard and of a job page are saved under test-artifacts/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test.utils import override_settings
from playwright.sync_api import Browser, Page, expect, sync_playwright

from jobs import queue_reads
from jobs.models import Job, JobStatus
from negative_cache.models import NegativeCacheEntry
from search.chromium import CHROMIUM_ARGS, find_chromium
from search.models import SessionEndReason
from tests.admin import rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
PASSWORD = "operator-pw-for-tests"
WAIT_MS = 15_000


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    # The same Chromium, found the same way and started with the same switches, as the workers' crawler.
    executable = find_chromium()
    # Playwright's sync API keeps an event loop on this thread; Django then refuses ORM calls from it unless told
    # that this thread is not serving async code (it is not: the live server runs in its own thread).
    ARTIFACTS.mkdir(exist_ok=True)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS), timeout=30_000)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def admin_server(request, tmp_path_factory):
    """The live server, started with a static root that exists (whitenoise checks it when it starts)."""
    with override_settings(STATIC_ROOT=tmp_path_factory.mktemp("live_static_root")):
        return request.getfixturevalue("live_server")


@pytest.fixture
def operator_page(browser: Browser, admin_server) -> Iterator[Page]:
    """A logged-in staff operator's tab."""
    User.objects.create_superuser("operator", "operator@example.test", PASSWORD)
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, base_url=admin_server.url)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", "operator")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_contain_text("LPS operations")
    yield page
    context.close()


@pytest.fixture
def operating_queue(snapshot_dir) -> dict:
    """A queue in the middle of a day: finished searches, a dead job, live jobs, sessions and a block."""
    made = {
        "found": rows.done("P-100", "갤럭시 버즈3 프로", rows.found_result("갤럭시 버즈3 프로", price=189_000)),
        "not_found": rows.done("P-200", "단종된 무선 이어폰", rows.not_found_result("단종된 무선 이어폰")),
        "dead": rows.dead("P-400", "비스포크 큐브 냉장고"),
        "dead_twin": rows.dead("P-410", "LG 스탠바이미"),
        "running": rows.running("P-500", "LG 그램 16"),
    }
    made["twin"] = rows.pending("P-410", "LG 스탠바이미")
    for number in range(3):
        rows.pending(f"W-{number}", f"아이패드 에어 {number}")
    rows.backdate(made["found"], created=timedelta(hours=2), updated=timedelta(minutes=50))
    blocked = rows.sessions({SessionEndReason.BLOCKED: [14, 31], SessionEndReason.BUDGET: [50, 50, 50, 50]})
    rows.sessions({SessionEndReason.BUDGET: [3, 7, 22]}, proxy="kr-proxy-2")
    rows.bot_event(snapshot_dir, query="LG 스탠바이미", session=blocked[0])
    made["negative"] = rows.negative("다이슨 V15 무선청소기")
    return made


def tile_value(page: Page, key: str) -> str:
    return page.locator(f'[data-tile="{key}"] .value').inner_text().strip()


def test_the_dashboard_agrees_with_the_database_and_refreshes_in_place(operator_page: Page, operating_queue):
    page = operator_page
    page.goto("/admin/dashboard/?refresh=2")
    snapshot = queue_reads.snapshot()

    for key in ("pending", "running", "done", "dead", "dead_last_hour", "stuck", "deadline_kills"):
        assert (
            tile_value(page, key)
            == f"{getattr(snapshot, key if key != 'deadline_kills' else 'deadline_kills_last_hour'):,}"
        )
    assert tile_value(page, "cost_last_hour") == "$0.0336"
    expect(page.locator("#lps-sessions svg")).to_contain_text("first block: 14 req")
    expect(page.locator("#lps-sessions svg")).to_contain_text("suggested budget: 11")
    page.screenshot(path=str(ARTIFACTS / "admin-dashboard.png"), full_page=True)

    page.evaluate("window.lpsNotReloaded = true")
    rows.pending("W-9", "새로 들어온 상품")
    expect(page.locator('[data-tile="pending"] .value')).to_have_text(f"{snapshot.pending + 1:,}", timeout=WAIT_MS)
    assert page.evaluate("window.lpsNotReloaded") is True


def test_an_operator_filters_dead_jobs_and_requeues_one(operator_page: Page, operating_queue):
    page = operator_page
    page.goto("/admin/")
    page.click("text=Operations dashboard")
    page.click('[data-tile="dead"]')
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    page.goto("/admin/jobs/job/")
    page.screenshot(path=str(ARTIFACTS / "admin-job-list.png"), full_page=True)
    page.locator("#changelist-filter").get_by_role("link", name="DEAD", exact=True).click()
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert page.locator("#result_list .lps-state").all_inner_texts() == ["DEAD", "DEAD"]

    dead, dead_twin = str(operating_queue["dead"]), str(operating_queue["dead_twin"])
    page.check(f'input[name="_selected_action"][value="{dead}"]')
    page.check(f'input[name="_selected_action"][value="{dead_twin}"]')
    page.select_option('select[name="action"]', "requeue_selected")
    page.click('button[name="index"]')

    expect(page.locator(".messagelist .success")).to_contain_text(f"Requeued: 1 job: {dead[:8]}")
    expect(page.locator(".messagelist .warning")).to_contain_text(
        f"active job holds the same dedupe key: 1 job: {dead_twin[:8]} (active twin {str(operating_queue['twin'])[:8]})"
    )
    assert Job.objects.get(job_id=dead).status == JobStatus.PENDING
    assert Job.objects.get(job_id=dead_twin).status == JobStatus.DEAD
    page.goto(f"/admin/jobs/job/{dead}/change/")
    expect(page.locator("#lps-job-state")).to_have_text("PENDING")

    page.goto(f"/admin/jobs/job/{operating_queue['found']}/change/")
    expect(page.locator("#lps-rounds .lps-verdict")).to_have_count(5)
    expect(page.locator("#lps-lowest")).to_contain_text("₩189,000")
    page.screenshot(path=str(ARTIFACTS / "admin-job-page.png"), full_page=True)
    page.goto(f"/admin/jobs/job/{dead_twin}/change/")
    snapshot_link = page.locator("#lps-bot-events .lps-snapshot-link")
    expect(snapshot_link).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "admin-dead-job-page.png"), full_page=True)
    with page.context.expect_page() as opened:
        snapshot_link.click()
    expect(opened.value.locator("h1")).to_have_text("Access Denied")


def test_an_operator_deletes_a_negative_cache_row_to_force_a_new_search(operator_page: Page, operating_queue):
    page = operator_page
    page.goto("/admin/negative_cache/negativecacheentry/")
    page.click("text=다이슨 V15 무선청소기")
    page.click("a.deletelink")
    page.click("input[type=submit]")

    expect(page.locator(".messagelist")).to_contain_text("runs for real")
    assert not NegativeCacheEntry.objects.filter(key=operating_queue["negative"]).exists()


def test_a_product_page_draws_its_price_history(operator_page: Page):
    product = rows.product_with_history("P-100", "갤럭시 버즈3 프로", [199_000, 195_000, None, 192_500, 189_000])
    page = operator_page

    page.goto(f"/admin/search/product/{product.pk}/change/")

    expect(page.locator("#lps-price-history svg .price-dot")).to_have_count(4)
    expect(page.locator("#lps-price-history svg .miss")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "admin-product-page.png"), full_page=True)


# --- Under the Content-Security-Policy: every page renders, styled, and the dashboard's charts and refresh work ----

# Records every violation the browser reports, before any page script runs.
REPORT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


def _visit(page: Page, path: str, violations: list[str]) -> None:
    response = page.goto(path)
    assert response is not None, path
    assert response.ok, (path, response.status)
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self' 'nonce-" in policy, (path, policy)
    assert "frame-ancestors 'none'" in policy, (path, policy)
    violations.extend(f"{path}: {entry}" for entry in page.evaluate("window.__cspViolations"))


def test_every_admin_page_and_the_dashboard_charts_work_under_the_content_security_policy(
    browser: Browser, operator_page: Page, operating_queue, admin_server
):
    page = operator_page
    page.context.add_init_script(REPORT_VIOLATIONS)
    console_errors: list[str] = []
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    product = rows.product_with_history("P-100", "갤럭시 버즈3 프로", [199_000, 195_000, None, 192_500, 189_000])
    violations: list[str] = []

    for path in [
        "/admin/",
        "/admin/jobs/job/",
        "/admin/jobs/job/?status__exact=4",
        f"/admin/jobs/job/{operating_queue['found']}/change/",
        f"/admin/jobs/job/{operating_queue['dead_twin']}/change/",
        "/admin/negative_cache/negativecacheentry/",
        f"/admin/search/product/{product.pk}/change/",
        "/admin/api/apiclient/",
        "/admin/api/apiclient/add/",
        "/admin/axes/accessattempt/",
        "/admin/auth/user/",
    ]:
        _visit(page, path, violations)
        # The console's stylesheet (an inline block with the nonce) applies: the header is LPS's.
        expect(page.locator("#site-name")).to_contain_text("LPS operations")
        if path == f"/admin/jobs/job/{operating_queue['found']}/change/":
            page.screenshot(path="/tmp/lps-csp-job-page.png", full_page=True)

    _visit(page, "/admin/jobs/job/?status__exact=4", violations)
    badge = page.locator("#result_list .lps-state").first
    assert badge.evaluate("element => getComputedStyle(element).backgroundColor") == "rgb(186, 33, 33)"

    _visit(page, "/admin/dashboard/?refresh=2", violations)
    chart = page.locator("#lps-sessions svg.lps-chart")
    expect(chart).to_contain_text("first block: 14 req")
    assert chart.bounding_box()["height"] > 50
    bar = page.locator("#lps-sessions svg .bar-sessions").first
    assert bar.evaluate("element => getComputedStyle(element).fill") == "rgb(121, 174, 200)"
    page.screenshot(path="/tmp/lps-csp-dashboard.png", full_page=True)
    # The refresh script (an inline block with the nonce) runs: a new job shows without a reload.
    page.evaluate("window.lpsNotReloaded = true")
    pending = tile_value(page, "pending")
    rows.pending("W-CSP", "새로 들어온 상품")
    expect(page.locator('[data-tile="pending"] .value')).not_to_have_text(pending, timeout=WAIT_MS)
    assert page.evaluate("window.lpsNotReloaded") is True
    violations.extend(page.evaluate("window.__cspViolations"))

    # Logged out: the login page.
    anonymous = browser.new_context(base_url=admin_server.url)
    anonymous.add_init_script(REPORT_VIOLATIONS)
    login = anonymous.new_page()
    _visit(login, "/admin/login/?next=/admin/", violations)
    expect(login.locator("#site-name")).to_contain_text("LPS operations")
    login.screenshot(path="/tmp/lps-csp-login.png", full_page=True)
    anonymous.close()

    assert violations == []
    assert [error for error in console_errors if "Content Security Policy" in error] == []
