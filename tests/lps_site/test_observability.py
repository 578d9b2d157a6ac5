"""What an on-call engineer reads, from the real processes: gunicorn (2 workers, Prometheus multiprocess mode)
serving the API and /metrics over HTTP, `runworker` searching the fake marketplace in Chromium and delivering
webhooks to a real receiver, `runreaper`; every scrape parsed with prometheus_client's own parser, and a JSON log
that follows one job from the POST that created it to the webhook that delivered it."""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from api import keys
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from tests.addresses import database_url, free_port
from tests.jobs.conftest import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PROJECT_DIR = Path(django_settings.BASE_DIR)
DYSON = "다이슨 V15 디텍트 무선청소기 SV47"
DYSON_LISTINGS = [
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 골드", "price": 1_049_000, "rocket": True, "seller": "다이슨"},
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 니켈", "price": 989_000},
    {"title": "다이슨 V15 디텍트 무선청소기 SV47 (광고)", "price": 799_000, "ad": True},
    {"title": "다이슨 V15 호환 필터 교체용", "price": 19_900},
]
NOWHERE = "세상에 없는 상품 XYZ-0"
PROXY_USD_PER_GB = 2.5


def environment(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "lps_site.settings",
        "PYTHONUNBUFFERED": "1",
        "OPENAI_API_KEY": "",
        "LPS_ALLOW_PRIVATE_CALLBACKS": "true",
        "LPS_SNAPSHOT_DIR": str(django_settings.LPS_SNAPSHOT_DIR),
        **extra,
    }
    # Only the web process keeps its metrics in files; a worker serves its own from memory.
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


def http(method: str, url: str, *, body: dict | None = None, key: str | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def scrape(url: str, key: str | None = None) -> dict[tuple[str, tuple], float]:
    """Every sample of a /metrics page, by (sample name, sorted labels), parsed by prometheus_client."""
    status, body = http("GET", url, key=key)
    assert status == 200, body
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def sample(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


class Process:
    """A subprocess whose output goes to a file, stopped with SIGTERM (then SIGKILL) at the end of the test."""

    def __init__(self, args: list[str], env: dict[str, str], log_path: Path):
        self.log_path = log_path
        with log_path.open("wb") as log:
            self.popen = subprocess.Popen(args, cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def json_lines(self) -> list[dict]:
        lines = []
        for line in self.log().splitlines():
            if line.startswith("{"):
                lines.append(json.loads(line))
        return lines

    def stop(self, timeout: float = 30) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)
            pytest.fail(f"{self.popen.args} did not stop on SIGTERM:\n{self.log()}")


@pytest.fixture
def processes() -> Iterator[Callable[..., Process]]:
    started: list[Process] = []

    def start(args: list[str], env: dict[str, str], log_path: Path) -> Process:
        process = Process(args, env, log_path)
        started.append(process)
        return process

    yield start
    for process in started:
        # SIGTERM first: a gunicorn master killed outright would leave its workers (and their database
        # connections) behind.
        if process.popen.poll() is None:
            process.popen.send_signal(signal.SIGTERM)
        try:
            process.popen.wait(30)
        except subprocess.TimeoutExpired:
            process.popen.kill()
            process.popen.wait(10)


class Web:
    def __init__(self, process: Process, port: int, multiproc_dir: Path):
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.multiproc_dir = multiproc_dir

    def worker_pids(self) -> set[int]:
        """The gunicorn workers that wrote metric files (counter_<pid>.db, histogram_<pid>.db)."""
        return {int(path.stem.rsplit("_", 1)[1]) for path in self.multiproc_dir.glob("*_*.db")}

    def counted_by(self, pid: int, name: str, **labels: str) -> float:
        """One worker's own count of a counter sample, read from its file with prometheus_client's merge."""
        files = [str(path) for path in self.multiproc_dir.glob(f"counter_{pid}.db")]
        return sum(
            sample.value
            for family in MultiProcessCollector.merge(files, accumulate=True)
            for sample in family.samples
            if sample.name == name and all(sample.labels.get(key) == value for key, value in labels.items())
        )


@pytest.fixture
def web(processes, tmp_path) -> Callable[..., Web]:
    """Start gunicorn with the Procfile's config: 2 processes of its gthread worker; multiprocess metrics."""

    def start(**env: str) -> Web:
        port = free_port()
        multiproc_dir = tmp_path / "prometheus"
        multiproc_dir.mkdir()
        process = processes(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "lps_site.wsgi",
                "--config",
                "python:lps_site.gunicorn_conf",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
            ],
            {**environment(**env), "PROMETHEUS_MULTIPROC_DIR": str(multiproc_dir)},
            tmp_path / "web.log",
        )
        started = Web(process, port, multiproc_dir)

        def answers() -> bool:
            assert process.popen.poll() is None, f"gunicorn exited:\n{process.log()}"
            try:
                return http("GET", f"{started.url}/healthz")[0] == 200
            except OSError:
                return False

        wait_until(answers, timeout=60, interval=0.2, message="gunicorn to answer")
        return started

    return start


def runworker(processes, tmp_path: Path, *args: str, name: str = "worker", **env: str) -> Process:
    return processes([sys.executable, "manage.py", "runworker", *args], environment(**env), tmp_path / f"{name}.log")


def submit(web: Web, key: str, products: list[dict]) -> list[str]:
    status, body = http("POST", f"{web.url}/v1/lps/search", body={"products": products}, key=key)
    assert status == 202, body
    return [job["job_id"] for job in json.loads(body)["jobs"]]


@pytest.mark.browser
def test_a_real_run_moves_the_worker_and_web_metrics_by_exactly_the_jobs_that_ran(
    web, processes, tmp_path, fake_marketplace, webhook_receiver
):
    fake_marketplace.set_results(DYSON, DYSON_LISTINGS)
    shop, operator = keys.issue_key("shop"), keys.issue_key("prometheus", operator=True)
    site = web()
    search_ids = submit(
        site,
        shop.api_key,
        [
            {"product_code": "DY-1", "product_name": DYSON, "brand": "다이슨", "model_code": "SV47"},
            {
                "product_code": "DY-2",
                "product_name": DYSON,
                "brand": "다이슨",
                "model_code": "SV47",
                "callback_url": webhook_receiver.url(),
            },
            {"product_code": "NO-1", "product_name": NOWHERE, "callback_url": webhook_receiver.url()},
        ],
    )
    metrics_port = free_port()
    worker = runworker(
        processes,
        tmp_path,
        "--metrics-port",
        str(metrics_port),
        "--search-concurrency",
        "1",
        LPS_COUPANG_URL=fake_marketplace.base_url,
        LPS_PROXY_USD_PER_GB=str(PROXY_USD_PER_GB),
        LPS_NAVIGATION_TIMEOUT_SECONDS="15",
    )
    worker_metrics = f"http://127.0.0.1:{metrics_port}/metrics"

    def finished_runs() -> dict | None:
        assert worker.popen.poll() is None, f"the worker exited:\n{worker.log()}"
        try:
            samples = scrape(worker_metrics)
        except OSError:
            return None
        done = [
            sample(samples, "lps_job_runs_finished_total", job_type=t, outcome="done") for t in ("SEARCH", "OUTBOX")
        ]
        return samples if done == [3, 2] else None

    # The worker's own port answers while it runs (it keeps running: not a burst worker).
    samples = wait_until(finished_runs, timeout=120, interval=0.25, message="3 searches and 2 webhooks")
    assert worker.popen.poll() is None

    searches = list(Job.objects.filter(job_type=JobType.SEARCH))
    assert sorted(str(job.job_id) for job in searches) == sorted(search_ids)
    assert all(job.status == JobStatus.DONE for job in Job.objects.all())
    results = [job.result for job in searches]
    rounds = [round_ for result in results for round_ in result["rounds"]]
    verdicts = [verdict for round_ in rounds for verdict in round_["verdicts"]]
    for job_type, runs in (("SEARCH", 3), ("OUTBOX", 2)):
        assert sample(samples, "lps_job_runs_started_total", job_type=job_type) == runs
        for outcome in ("retried", "dead", "deadline", "lost", "released"):
            assert sample(samples, "lps_job_runs_finished_total", job_type=job_type, outcome=outcome) == 0
        assert sample(samples, "lps_job_run_duration_seconds_count", job_type=job_type) == runs
        assert sample(samples, "lps_job_queue_wait_seconds_count", job_type=job_type) == runs
        assert sample(samples, "lps_job_queue_wait_seconds_bucket", job_type=job_type, le="+Inf") == runs
    assert sample(samples, "lps_searches_total", outcome="found") == 2
    assert sample(samples, "lps_searches_total", outcome="not_found") == 1
    assert sample(samples, "lps_searches_total", outcome="cached") == 0
    for kind in ("original", "precise", "broad"):
        assert sample(samples, "lps_search_rounds_total", kind=kind) == sum(1 for r in rounds if r["kind"] == kind)
    assert sample(samples, "lps_crawler_pages_total", result="ok") == len(rounds)
    assert sample(samples, "lps_crawler_pages_total", result="ok") == len(fake_marketplace.search_queries)
    assert sample(samples, "lps_crawler_bytes_total") == sum(result["metrics"]["bytes"] for result in results) > 0
    assert sample(samples, "lps_cost_usd_total", kind="proxy") == pytest.approx(
        sum(result["metrics"]["cost"]["proxy_usd"] for result in results), abs=1e-7
    )
    assert sample(samples, "lps_cost_usd_total", kind="ai") == 0
    for answer in (True, False):
        expected = sum(1 for verdict in verdicts if verdict["same_product"] is answer)
        assert sample(samples, "lps_judge_verdicts_total", source="rules", same_product=str(answer).lower()) == expected
    assert sample(samples, "lps_judge_verdicts_total", source="llm", same_product="true") == 0
    assert sample(samples, "lps_webhook_attempts_total", result="delivered") == 2
    assert sample(samples, "lps_webhook_deliveries_total", result="delivered") == 2
    assert sample(samples, "lps_webhook_delivery_attempts_count") == 2
    assert len(webhook_receiver.deliveries()) == 2
    assert worker.stop() == 0

    for _ in range(8):
        assert http("GET", f"{site.url}/healthz")[0] == 200
    web_samples = scrape(f"{site.url}/metrics", operator.api_key)
    assert sample(web_samples, "lps_queue_up") == 1
    assert sample(web_samples, "lps_queue_jobs", job_type="SEARCH", status="DONE") == 3
    assert sample(web_samples, "lps_queue_jobs", job_type="OUTBOX", status="DONE") == 2
    assert sample(web_samples, "lps_queue_jobs", job_type="SEARCH", status="PENDING") == 0
    assert sample(web_samples, "lps_queue_expired_leases") == 0
    responses = "django_http_responses_total_by_status_view_method_total"
    assert sample(web_samples, responses, view="lps-api:search_products", status="202", method="POST") == 1
    # gunicorn's readiness probe made some /healthz requests before these 8; every one is counted once.
    healthz = sample(web_samples, responses, view="lps-api:healthz", status="200", method="GET")
    assert healthz >= 8
    assert sample(web_samples, "lps_job_runs_started_total", job_type="SEARCH") == 0, "the web runs no jobs"


def test_gunicorn_workers_metrics_add_up_whichever_worker_answers_and_survive_a_worker_restart(web):
    operator = keys.issue_key("prometheus", operator=True)
    # One thread a worker: a worker answering a request stops accepting until it is done, which leaves
    # connections that arrive meanwhile to the other (a worker with a free thread would accept them all itself).
    site = web(LPS_WEB_THREADS="1")
    responses = "django_http_responses_total_by_status_view_method_total"

    healthz = {"view": "lps-api:healthz", "status": "200", "method": "GET"}

    def healthz_count() -> float:
        samples = scrape(f"{site.url}/metrics", operator.api_key)
        return sample(samples, responses, **healthz)

    def both_workers_answered() -> bool:
        # Eight at once, so that a worker busy with one leaves the next to the other. On a loaded machine the
        # second worker may still be booting when the site first answers; the sums below mean something only once
        # both have served.
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert all(status == 200 for status, *_ in pool.map(lambda _: http("GET", f"{site.url}/healthz"), range(8)))
        counts = [site.counted_by(pid, responses, **healthz) for pid in site.worker_pids()]
        return len(counts) == 2 and all(count > 0 for count in counts)

    wait_until(both_workers_answered, timeout=60, message="both gunicorn workers answering")
    before = healthz_count()
    # A request whose headers do not end yet waits in its worker's poller while 60 others are answered; then it is
    # finished (within the head deadline), answered and counted like them, whichever worker took it.
    held = socket.create_connection(("127.0.0.1", site.port), timeout=30)
    held.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n")
    for _ in range(60):
        assert http("GET", f"{site.url}/healthz")[0] == 200
    held.sendall(b"\r\n")
    with held, held.makefile("rb") as answer:
        assert answer.readline().split()[1] == b"200"
        answer.read()

    served = {pid: site.counted_by(pid, responses, **healthz) for pid in site.worker_pids()}
    assert len(served) == 2
    assert sum(served.values()) == before + 61
    # Each scrape is answered by either worker, and each sums both.
    assert {healthz_count() - before for _ in range(6)} == {61}

    victim = max(served, key=served.get)
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: len(site.worker_pids() - {victim}) == 2 or None, timeout=30, message="a new gunicorn worker")
    for _ in range(5):
        assert http("GET", f"{site.url}/healthz")[0] == 200

    assert {healthz_count() - before for _ in range(4)} == {66}, "a dead worker's counts stay in the totals"
    assert site.process.stop() == 0


@pytest.mark.browser
def test_a_json_log_follows_one_job_from_the_post_to_the_webhook(
    web, processes, tmp_path, fake_marketplace, webhook_receiver
):
    fake_marketplace.set_results(DYSON, DYSON_LISTINGS)
    shop = keys.issue_key("shop-json")
    site = web(LPS_LOG_FORMAT="json")
    (search_id, other_id) = submit(
        site,
        shop.api_key,
        [
            {"product_code": "DY-1", "product_name": DYSON, "callback_url": webhook_receiver.url()},
            {"product_code": "DY-2", "product_name": DYSON},
        ],
    )
    worker = runworker(processes, tmp_path, "--burst", LPS_LOG_FORMAT="json", LPS_COUPANG_URL=fake_marketplace.base_url)
    assert worker.popen.wait(120) == 0, worker.log()
    assert site.process.stop() == 0

    web_lines = site.process.json_lines()
    assert any(line["logger"] == "gunicorn.error" and "Booting worker" in line["message"] for line in web_lines)
    api_lines = [line for line in web_lines if line.get("logger") == "api.endpoints"]
    (created,) = [line for line in api_lines if search_id in line.get("job_ids", [])]
    assert created["client"] == "shop-json"
    assert created["job_ids"] == [search_id, other_id]
    assert {"time", "level", "message"} <= set(created)

    worker_lines = worker.json_lines()
    assert worker_lines, worker.log()
    search_lines = [line for line in worker_lines if line.get("job_id") == search_id]
    loggers = [line["logger"] for line in search_lines]
    assert {"jobs.worker", "search.pipeline", "search.handler"} <= set(loggers)
    assert search_lines[0]["message"].startswith("start SEARCH")
    assert search_lines[-1]["message"].startswith("done SEARCH")
    for line in search_lines:
        assert (line["attempt"], line["job_type"]) == (1, "SEARCH")
        assert line["worker_id"] == search_lines[0]["worker_id"]
    (delivered,) = [line for line in worker_lines if line.get("search_job_id") == search_id]
    assert delivered["logger"] == "api.webhooks"
    assert delivered["job_type"] == "OUTBOX"
    assert delivered["job_id"] != search_id
    assert "delivered" in delivered["message"]
    outbox = Job.objects.get(job_type=JobType.OUTBOX)
    assert delivered["job_id"] == str(outbox.job_id)
    assert [line["message"].split(" ")[0] for line in worker_lines if line.get("job_id") == str(outbox.job_id)] == [
        "start",
        "webhook",
        "done",
    ]
    assert all(line.get("search_job_id") != other_id for line in worker_lines)
    # Every line is one JSON object.
    assert all(line.startswith("{") for line in worker.log().splitlines() if line.strip())


def test_the_reaper_serves_its_own_metrics_port_and_logs_each_job_it_reclaims_with_its_fields(processes, tmp_path):
    from jobs import queue

    lost = queue.enqueue(queue.NewJob(JobType.OUTBOX, {}))
    queue.claim("gone-worker", job_types=[JobType.OUTBOX], lease_seconds=0.01)
    port = free_port()
    reaper = processes(
        [sys.executable, "manage.py", "runreaper", "--interval", "0.2", "--metrics-port", str(port)],
        environment(LPS_LOG_FORMAT="json"),
        tmp_path / "reaper.log",
    )

    def reclaimed() -> float | None:
        assert reaper.popen.poll() is None, reaper.log()
        try:
            samples = scrape(f"http://127.0.0.1:{port}/metrics")
        except OSError:
            return None
        return samples if sample(samples, "lps_reaper_passes_total", result="ok") >= 1 else None

    samples = wait_until(reclaimed, timeout=60, interval=0.2, message="a reaper pass")
    assert sample(samples, "lps_reaper_reclaimed_jobs_total", status="PENDING") == 1
    assert Job.objects.get().status == JobStatus.PENDING
    assert reaper.stop() == 0
    lines = reaper.json_lines()
    assert any(line["message"] == f"metrics on http://127.0.0.1:{port}/metrics" for line in lines)
    (reclaimed,) = [line for line in lines if line.get("job_id") == str(lost.job_id)]
    assert (reclaimed["attempt"], reclaimed["job_type"], reclaimed["worker_id"]) == (1, "OUTBOX", "gone-worker")
    assert reclaimed["message"].startswith("reclaimed OUTBOX")


def test_a_worker_asked_for_a_port_in_use_says_so_and_exits(processes, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        worker = runworker(processes, tmp_path, "--burst", "--metrics-port", str(taken.getsockname()[1]))
        assert worker.popen.wait(60) != 0
    assert "--metrics-port" in worker.log()
    assert "cannot listen on 127.0.0.1" in worker.log()
