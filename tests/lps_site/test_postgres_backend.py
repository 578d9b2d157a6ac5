"""The database backend (lps_site/postgres_backend): its health check (a kept connection the server closed is
replaced before a request uses it, and a healthy one costs no round trip), and the statements a job read runs,
prepared once per connection unless LPS_DATABASE_PREPARED_STATEMENTS is off."""

from __future__ import annotations

import io
import json
import sys

import psycopg
import pytest
from django.core.wsgi import get_wsgi_application
from django.db import connection

from api import keys
from jobs import queue
from tests.addresses import database_url
from tests.jobs.queue_jobs import new

pytestmark = pytest.mark.django_db(transaction=True)


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _last_statement(pid: int) -> str:
    """What the server process `pid` last ran, as another connection sees it."""
    with psycopg.connect(database_url(), autocommit=True) as other:
        return other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()[0]


def _terminate(pid: int) -> None:
    """End the server process of a connection, as a restart or an idle timeout does, and wait until it is gone."""
    with psycopg.connect(database_url(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))


def test_an_idle_connection_is_found_healthy_without_running_anything():
    pid = _backend_pid()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'the last statement'")

    assert connection.is_usable()
    assert _last_statement(pid) == "SELECT 'the last statement'"


def test_a_connection_whose_server_process_ended_is_not_usable():
    _terminate(_backend_pid())

    assert not connection.is_usable()
    connection.close()


def _get(application, path: str, api_key: str) -> tuple[str, dict]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_X_API_KEY": api_key,
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
    }
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = status

    body = b"".join(application(environ, start_response))
    return answer["status"], json.loads(body)


def test_a_request_after_the_server_closed_the_kept_connection_is_answered_on_a_new_one():
    assert connection.settings_dict["CONN_MAX_AGE"] > 0
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    application = get_wsgi_application()
    shop = keys.issue_key("shop")
    missing = "/v1/lps/jobs/00000000-0000-0000-0000-000000000001"
    assert _get(application, missing, shop.api_key)[0] == "404 Not Found"
    kept = _backend_pid()

    _terminate(kept)
    status, body = _get(application, missing, shop.api_key)

    assert (status, body["result"]) == ("404 Not Found", 1500), body
    assert _backend_pid() != kept


def _prepared_statements() -> list[str]:
    """The statements this process's connection holds prepared (the protocol's, not SQL PREPARE's)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY prepare_time")
        return [statement for (statement,) in cursor.fetchall()]


def _a_job_of(shop: keys.IssuedKey) -> str:
    [enqueued] = queue.enqueue_many([new(owner_id=shop.client.pk)])
    return f"/v1/lps/jobs/{enqueued.job_id}"


def test_a_job_read_prepares_its_key_check_and_its_read_once_and_reuses_them():
    application = get_wsgi_application()
    shop = keys.issue_key("shop")
    path = _a_job_of(shop)
    connection.close()

    first = _get(application, path, shop.api_key)
    prepared = _prepared_statements()
    again = _get(application, path, shop.api_key)

    assert first[0] == again[0] == "200 OK"
    assert first[1]["job"] == again[1]["job"]
    assert len(prepared) == 2, prepared
    admission, read = prepared
    assert "INSERT INTO api_rate_bucket" in admission
    assert "FROM api_client" in admission
    assert read.startswith('SELECT "job"."job_id"')
    assert '"job"."owner_id" = $1 AND "job"."job_id" = $2' in read
    assert _prepared_statements() == prepared


def test_with_prepared_statements_off_a_job_read_prepares_nothing(settings):
    settings.LPS_DATABASE_PREPARED_STATEMENTS = False
    application = get_wsgi_application()
    shop = keys.issue_key("shop")
    path = _a_job_of(shop)
    connection.close()

    status, body = _get(application, path, shop.api_key)

    assert (status, body["job"]["status"]) == ("200 OK", "PENDING")
    assert _prepared_statements() == []
    connection.close()
