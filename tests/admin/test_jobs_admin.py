"""The job admin through Django's test client: list, filters, search, the job page, read-only, requeue."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.db.models import F
from django.db.models.fields.json import KT
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from jobs.models import Job, JobStatus
from tests.admin import rows

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:jobs_job_changelist")


def change_url(job_id) -> str:
    return reverse("admin:jobs_job_change", args=[job_id])


def listed_ids(response) -> set[str]:
    """The short job ids in the list's first column."""
    return set(re.findall(r'<th class="field-short_id"><a href="[^"]+">([0-9a-f]{8})</a>', response.content.decode()))


@pytest.fixture
def jobs_of_every_kind():
    """Finished jobs first (claim takes the oldest pending job), then the live ones."""
    found = rows.done("P-100", "갤럭시 버즈3 프로", rows.found_result("갤럭시 버즈3 프로", price=189_000))
    not_found = rows.done("P-200", "단종된 무선 이어폰", rows.not_found_result("단종된 무선 이어폰"))
    cached = rows.done("P-300", "없는 상품", rows.not_found_result("없는 상품", cached=True))
    dead = rows.dead("P-400", "비스포크 큐브 냉장고")
    running = rows.running("P-500", "LG 그램 16")
    pending = rows.pending("P-600", "아이패드 에어 13")
    rows.backdate(found, created=timedelta(days=3))
    return {
        "found": found,
        "not_found": not_found,
        "cached": cached,
        "dead": dead,
        "running": running,
        "pending": pending,
    }


def test_the_job_list_shows_state_product_outcome_price_cost_tries_and_error(admin_client, jobs_of_every_kind):
    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    html = response.content.decode()
    assert listed_ids(response) == {str(job_id)[:8] for job_id in jobs_of_every_kind.values()}
    for expected in (
        "P-100",
        "갤럭시 버즈3 프로",
        "₩189,000",
        "$0.0126",
        "lps-state-dead",
        "lps-state-running",
        "not found (cached)",
        "CrawlBlocked: HTTP 403",
        "1/3",
        "3d",
    ):
        assert expected in html


def test_the_job_list_filters_by_state_type_outcome_and_age(admin_client, jobs_of_every_kind):
    def ids(query: str) -> set[str]:
        response = admin_client.get(CHANGELIST + query)
        assert response.status_code == 200
        return listed_ids(response)

    short = {name: str(job_id)[:8] for name, job_id in jobs_of_every_kind.items()}
    assert ids(f"?status__exact={JobStatus.DEAD}") == {short["dead"]}
    assert ids(f"?status__exact={JobStatus.PENDING}") == {short["pending"]}
    assert ids("?job_type__exact=2") == set()
    assert ids("?outcome=found") == {short["found"]}
    assert ids("?outcome=not_found") == {short["not_found"], short["cached"]}
    assert ids("?outcome=cached") == {short["cached"]}
    assert ids("?outcome=none") == {short["dead"], short["running"], short["pending"]}
    assert short["found"] not in ids("?created_at_within=24h")
    assert ids("?created_at_within=30d") == set(short.values())


def test_the_job_search_matches_the_exact_product_code_or_part_of_the_name(admin_client, jobs_of_every_kind):
    def ids(term: str) -> set[str]:
        return listed_ids(admin_client.get(CHANGELIST, {"q": term}))

    assert ids("P-400") == {str(jobs_of_every_kind["dead"])[:8]}
    assert ids("P-4") == set()
    assert ids("그램") == {str(jobs_of_every_kind["running"])[:8]}
    assert ids("버즈3") == {str(jobs_of_every_kind["found"])[:8]}


def test_the_job_search_and_outcome_filter_are_served_by_the_expression_indexes(jobs_of_every_kind):
    # With sequential scans priced out, the planner must find an index whose expression matches the lookup.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    plans = {
        "job_product_code_idx": Job.objects.filter(payload__product_code="P-400").explain(),
        "job_product_name_trgm_idx": Job.objects.filter(payload__product_name__icontains="그램").explain(),
        "job_outcome_created_idx": Job.objects.alias(outcome=KT("result__outcome"))
        .filter(outcome="found")
        .order_by("-created_at")
        .explain(),
    }
    for index_name, plan in plans.items():
        assert index_name in plan, plan


def test_the_job_page_lays_out_payload_rounds_verdicts_links_and_cost(admin_client, jobs_of_every_kind):
    response = admin_client.get(change_url(jobs_of_every_kind["found"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "₩189,000" in html
    assert 'href="https://www.coupang.com/vp/products/7340012?itemId=1"' in html
    assert html.count('class="lps-round"') == 2
    assert html.count('class="lps-verdict"') == 5
    assert "케이스 액세서리, 본품 아님" in html
    assert "model code and brand match" in html
    assert "precise" in html
    assert "$0.0126" in html
    assert "8.4 s" in html
    assert "browser page 0 ms · navigation 1,204 ms · parse 11 ms · judge 7,010 ms · database 9 ms" in html
    assert "Client&#x27;s price" in html
    assert "₩15,000" in html
    assert "Requeue this DEAD job" not in html


def test_the_job_page_of_a_dead_job_shows_the_error_and_the_failure_snapshot(admin_client, snapshot_dir):
    session = rows.sessions({rows.SessionEndReason.BLOCKED: [23]})[0]
    job_id = rows.dead("P-700", "다이슨 에어랩")
    event = rows.bot_event(snapshot_dir, query="다이슨 에어랩", session=session)
    other_product = rows.bot_event(snapshot_dir, query="LG 그램 16", session=session, name="other.html")

    response = admin_client.get(change_url(job_id))

    html = response.content.decode()
    assert response.status_code == 200
    assert "CrawlBlocked: HTTP 403 from www.coupang.com (challenge page)" in html
    assert "Requeue this DEAD job" in html
    snapshot = reverse("admin:search_botevent_snapshot", args=["2026-11-30/block.html"])
    assert f'href="{snapshot}"' in html
    assert reverse("admin:search_botevent_change", args=[event.pk]) in html
    assert reverse("admin:search_botevent_change", args=[other_product.pk]) not in html


def test_nothing_in_the_job_admin_changes_a_job_by_editing(admin_client, jobs_of_every_kind):
    job_id = jobs_of_every_kind["dead"]
    before = Job.objects.values().get(job_id=job_id)

    assert admin_client.get(reverse("admin:jobs_job_add")).status_code == 403
    edit = admin_client.post(change_url(job_id), {"status": JobStatus.PENDING, "attempts": 0, "priority": 1})
    assert edit.status_code == 403
    assert admin_client.post(reverse("admin:jobs_job_delete", args=[job_id]), {"post": "yes"}).status_code == 403
    deleting = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [job_id]}, follow=True)
    assert "No action selected" in deleting.content.decode()
    assert 'value="delete_selected"' not in admin_client.get(CHANGELIST).content.decode()
    page = admin_client.get(change_url(job_id)).content.decode()
    assert 'name="_save"' not in page
    assert Job.objects.values().get(job_id=job_id) == before


def test_the_requeue_action_requeues_dead_jobs_and_refuses_twins_and_live_jobs(admin_client):
    requeued = rows.dead("P-800", "에어팟 맥스")
    blocked = rows.dead("P-900", "맥북 에어 M4")
    live = rows.running("P-950", "닌텐도 스위치 2")
    twin = rows.pending("P-900", "맥북 에어 M4")

    response = admin_client.post(
        CHANGELIST,
        {"action": "requeue_selected", "_selected_action": [str(requeued), str(blocked), str(live)]},
        follow=True,
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert Job.objects.get(job_id=requeued).status == JobStatus.PENDING
    assert Job.objects.get(job_id=requeued).attempts == 0
    assert Job.objects.get(job_id=blocked).status == JobStatus.DEAD
    assert Job.objects.get(job_id=live).status == JobStatus.RUNNING
    assert re.search(r"Requeued: 1 job: <a href=\"[^\"]+\">" + str(requeued)[:8], html)
    assert re.search(
        r"Refused: an active job holds the same dedupe key: 1 job: <a [^>]+>"
        + str(blocked)[:8]
        + r"</a> \(active twin <a [^>]+>"
        + str(twin)[:8],
        html,
    )
    assert re.search(r"Refused: not dead: 1 job: <a [^>]+>" + str(live)[:8], html)


def test_the_job_page_requeue_button_moves_a_dead_job_to_pending(admin_client):
    job_id = rows.dead("P-990", "갤럭시 워치7")

    response = admin_client.post(reverse("admin:jobs_job_requeue", args=[job_id]), follow=True)

    assert response.status_code == 200
    assert Job.objects.get(job_id=job_id).status == JobStatus.PENDING
    assert "Requeued: 1 job" in response.content.decode()
    assert admin_client.get(reverse("admin:jobs_job_requeue", args=[job_id])).status_code == 405


def test_a_staff_user_who_may_only_view_jobs_cannot_requeue(client):
    viewer = User.objects.create_user("viewer", password="pw-for-tests", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_job"))
    client.force_login(viewer)
    job_id = rows.dead("P-991", "갤럭시 탭 S10")

    assert client.get(CHANGELIST).status_code == 200
    assert "requeue_selected" not in client.get(CHANGELIST).content.decode()
    assert client.post(reverse("admin:jobs_job_requeue", args=[job_id])).status_code == 403
    assert Job.objects.get(job_id=job_id).status == JobStatus.DEAD


def test_the_job_list_counts_at_most_a_bounded_number_of_rows(admin_client, jobs_of_every_kind):
    # Statistics that know the table is small, so that the paginator counts instead of estimating.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert counts
    assert all("LIMIT" in sql for sql in counts), counts


def test_the_job_page_shows_the_queue_wait_from_enqueue_to_the_first_start(admin_client):
    started_once = rows.running("P-800", "LG 그램 16")
    Job.objects.filter(job_id=started_once).update(run_started_at=F("created_at") + timedelta(seconds=42.5))
    retried = rows.running("P-801", "LG 그램 17")
    Job.objects.filter(job_id=retried).update(attempts=2, run_started_at=F("created_at") + timedelta(minutes=3))
    waiting = rows.pending("P-802", "LG 그램 18")

    def shown(job_id) -> str:
        html = admin_client.get(change_url(job_id)).content.decode()
        return re.search(r'<td id="lps-queue-wait">([^<]*)<', html).group(1).strip()

    assert shown(started_once) == "42.5s"
    assert shown(retried) == "not kept after a retry (attempt 2 started 3m after enqueue)"
    assert shown(waiting) == "not started yet"
