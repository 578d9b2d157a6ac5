"""Odd paths and methods over real HTTP (a live server): a path that decodes to a control character is a 404
naming `path`, since no identifier holds one (a NUL was a 500 from PostgreSQL); the OpenAPI document's path
refuses other methods with a 405 (it was the CSRF check's 403); and a plain log line stays one line whatever a
client put in it."""

from __future__ import annotations

import logging

import pytest
import requests

from api import keys
from api.codes import ResultCode
from jobs.log_context import PlainFormatter
from lps_site.settings import LOG_LINE

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("code", ["ab%00cd", "ab%0aINFO%20forged", "ab%0d%0a", "ab%7f", "%c2%85"])
def test_a_path_with_a_control_character_is_a_404_naming_the_path(live_server, code):
    shop = keys.issue_key("shop")

    response = requests.get(f"{live_server.url}/v1/lps/watches/{code}", headers={"X-API-Key": shop.api_key}, timeout=30)

    assert response.status_code == 404, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    body = response.json()
    assert (body["result"], body["field"]) == (ResultCode.HTTP_NOT_FOUND, "path")


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_the_openapi_document_answers_other_methods_405_in_the_envelope(live_server, method):
    response = requests.request(method, f"{live_server.url}/v1/lps/openapi.json", json={}, timeout=30)

    assert response.status_code == 405, response.text
    assert response.json()["result"] == ResultCode.HTTP_METHOD_NOT_ALLOWED
    assert response.headers["Allow"] == "GET, HEAD"


def test_the_openapi_document_is_still_served_to_get(live_server):
    response = requests.get(f"{live_server.url}/v1/lps/openapi.json", timeout=30)

    assert response.status_code == 200
    assert response.json()["info"]["title"]


def test_a_plain_log_line_escapes_the_line_breaks_a_client_sent_and_keeps_its_traceback_below():
    formatter = PlainFormatter(LOG_LINE)
    record = logging.LogRecord("api", logging.WARNING, __file__, 1, "refused %s", ("/v1/x\nINFO forged\r\x00",), None)
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()

    first, *traceback = formatter.format(record).split("\n")

    assert first.endswith("refused /v1/x\\nINFO forged\\r\\x00")
    assert traceback[0] == "Traceback (most recent call last):"
    assert traceback[-1] == "ValueError: boom"
