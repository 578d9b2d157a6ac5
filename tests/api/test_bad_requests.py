"""A corpus of bad requests: each is answered 4xx with a result code, names its field, and writes nothing."""

from __future__ import annotations

import gzip
import json
import uuid

import pytest

from api.codes import ResultCode
from jobs import queue
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from tests.api.conftest import products

pytestmark = [pytest.mark.django_db]

ONE = {"product_code": "A1", "product_name": "삼다수 2L"}
SEARCH_JSON = json.dumps({"products": [ONE]}, ensure_ascii=False).encode()


def with_product(**fields) -> dict:
    product = {**ONE, **fields}
    return {"products": [product]}


def without(field: str) -> dict:
    return {"products": [{key: value for key, value in ONE.items() if key != field}]}


BAD_BODIES = [
    # (case id, raw body, expected status, expected code, expected field or None)
    ("broken JSON", b'{"products": [', 400, ResultCode.JSON_PARSE_ERROR, None),
    ("not JSON at all", b"products=A1", 400, ResultCode.JSON_PARSE_ERROR, None),
    ("invalid UTF-8", b'{"products": "\xff\xfe"}', 400, ResultCode.JSON_PARSE_ERROR, None),
    (
        "NaN literal",
        b'{"products": [{"product_code": "A", "product_name": "B", "price": NaN}]}',
        400,
        ResultCode.JSON_PARSE_ERROR,
        "body",
    ),
    (
        "NaN in an ignored field",
        b'{"products": [{"product_code": "A", "product_name": "B"}], "extra": NaN}',
        400,
        ResultCode.JSON_PARSE_ERROR,
        "body",
    ),
    ("Infinity", b'{"products": [{"product_code": "A", "product_name": "B", "x": Infinity}]}', 400, 100, "body"),
    ("-Infinity", b'{"products": [{"product_code": "A", "product_name": "B", "x": -Infinity}]}', 400, 100, "body"),
    ("UTF-8 with a BOM", b"\xef\xbb\xbf" + SEARCH_JSON, 400, ResultCode.JSON_PARSE_ERROR, "body"),
    ("UTF-16 with a BOM", SEARCH_JSON.decode().encode("utf-16"), 400, ResultCode.JSON_PARSE_ERROR, "body"),
    ("UTF-16LE", SEARCH_JSON.decode().encode("utf-16-le"), 400, ResultCode.JSON_PARSE_ERROR, "body"),
    ("UTF-16BE", SEARCH_JSON.decode().encode("utf-16-be"), 400, ResultCode.JSON_PARSE_ERROR, "body"),
    ("UTF-32", SEARCH_JSON.decode().encode("utf-32"), 400, ResultCode.JSON_PARSE_ERROR, "body"),
    (
        "a duplicated product_code",
        b'{"products": [{"product_code": "DUP-2", "product_code": "DUP-3", "product_name": "B"}]}',
        400,
        ResultCode.JSON_PARSE_ERROR,
        "product_code",
    ),
    (
        "a duplicated top-level key",
        b'{"products": [{"product_code": "A", "product_name": "B"}], "products": []}',
        400,
        ResultCode.JSON_PARSE_ERROR,
        "products",
    ),
    (
        "integer too long to parse",
        b'{"products": [{"product_code": "A", "product_name": "B", "price": 1' + b"0" * 5000 + b"}]}",
        400,
        ResultCode.JSON_PARSE_ERROR,
        None,
    ),
    ("deeply nested", b"[" * 100_000 + b"]" * 100_000, 400, ResultCode.JSON_PARSE_ERROR, None),
    ("empty body", b"", 400, ResultCode.INVALID_REQUEST_DATA, "body"),
    ("JSON array body", b"[]", 400, ResultCode.INVALID_REQUEST_DATA, "body"),
    ("JSON string body", b'"products"', 400, ResultCode.INVALID_REQUEST_DATA, "body"),
    ("JSON null body", b"null", 400, ResultCode.INVALID_REQUEST_DATA, None),
]

BAD_JSON = [
    ("no products", {}, "products"),
    ("products is null", {"products": None}, "products"),
    ("products is an object", {"products": ONE}, "products"),
    ("products is a string", {"products": "A1"}, "products"),
    ("empty products", {"products": []}, "products"),
    ("too many products", {"products": products(1001)}, "products"),
    ("product is a string", {"products": ["A1"]}, "products[0]"),
    ("product is null", {"products": [None]}, "products[0]"),
    ("missing product_code", without("product_code"), "products[0].product_code"),
    ("missing product_name", without("product_name"), "products[0].product_name"),
    ("empty product_code", with_product(product_code=""), "products[0].product_code"),
    ("blank product_name", with_product(product_name="   "), "products[0].product_name"),
    ("product_code as number", with_product(product_code=123), "products[0].product_code"),
    ("product_name as list", with_product(product_name=["a"]), "products[0].product_name"),
    ("product_code too long", with_product(product_code="C" * 191), "products[0].product_code"),
    ("huge product_name", with_product(product_name="가" * 100_000), "products[0].product_name"),
    ("NUL in product_code", with_product(product_code="A\u0000B"), "products[0].product_code"),
    ("NUL in product_name", with_product(product_name="삼다수\u0000"), "products[0].product_name"),
    ("control char in brand", with_product(brand="x\u0007"), "products[0].brand"),
    ("newline in model_code", with_product(model_code="SD\n2"), "products[0].model_code"),
    ("brand too long", with_product(brand="b" * 201), "products[0].brand"),
    ("brand as number", with_product(brand=5), "products[0].brand"),
    ("price as string", with_product(price="15000"), "products[0].price"),
    ("price as float", with_product(price=15000.5), "products[0].price"),
    ("price as bool", with_product(price=True), "products[0].price"),
    ("negative price", with_product(price=-1), "products[0].price"),
    ("price beyond int32", with_product(price=2**31), "products[0].price"),
    ("price as object", with_product(price={"won": 1}), "products[0].price"),
    ("unknown priority", {**with_product(), "priority": "urgent"}, "priority"),
    ("priority as number", {**with_product(), "priority": 1}, "priority"),
    ("priority in capitals", {**with_product(), "priority": "HIGH"}, "priority"),
    ("zero-width-only product_name", with_product(product_name="\u200b\u200b"), "products[0].product_name"),
    ("BOM-only product_name", with_product(product_name="\ufeff"), "products[0].product_name"),
    (
        "format-chars-and-spaces product_name",
        with_product(product_name=" \u200d \u2060\u200e "),
        "products[0].product_name",
    ),
    ("zero-width-only product_code", with_product(product_code="\u200b"), "products[0].product_code"),
    ("BOM and spaces product_code", with_product(product_code="\ufeff \u00a0"), "products[0].product_code"),
    ("right-to-left override in product_code", with_product(product_code="RTL\u202e-2"), "products[0].product_code"),
    ("zero-width space inside product_name", with_product(product_name="삼다\u200b수 2L"), "products[0].product_name"),
    ("direction isolate in brand", with_product(brand="\u2067LPS\u2069"), "products[0].brand"),
    ("left-to-right mark in model_code", with_product(model_code="SD-2\u200e"), "products[0].model_code"),
    ("BOM inside product_code", with_product(product_code="A\ufeff1"), "products[0].product_code"),
    ("combining marks only product_name", with_product(product_name="\u0301\u0302\u0303"), "products[0].product_name"),
    ("punctuation only product_name", with_product(product_name="-- !! --"), "products[0].product_name"),
    ("callback_url as number", with_product(callback_url=1), "products[0].callback_url"),
    ("callback_url file://", with_product(callback_url="file:///etc/passwd"), "products[0].callback_url"),
    ("callback_url ftp://", with_product(callback_url="ftp://93.184.216.34/x"), "products[0].callback_url"),
    ("callback_url without scheme", with_product(callback_url="93.184.216.34/hook"), "products[0].callback_url"),
    (
        "callback_url metadata IP",
        with_product(callback_url="http://169.254.169.254/latest/meta-data/"),
        "products[0].callback_url",
    ),
    (
        "callback_url metadata name",
        with_product(callback_url="http://metadata.google.internal/computeMetadata/v1/"),
        "products[0].callback_url",
    ),
    ("callback_url link-local IPv6", with_product(callback_url="http://[fe80::1]/hook"), "products[0].callback_url"),
    (
        "callback_url IPv4-mapped metadata",
        with_product(callback_url="http://[::ffff:169.254.169.254]/"),
        "products[0].callback_url",
    ),
    (
        "callback_url loopback without the setting",
        with_product(callback_url="http://127.0.0.1:8080/hook"),
        "products[0].callback_url",
    ),
    (
        "callback_url localhost without the setting",
        with_product(callback_url="http://localhost/hook"),
        "products[0].callback_url",
    ),
    (
        "callback_url private without the setting",
        with_product(callback_url="http://10.0.0.8/hook"),
        "products[0].callback_url",
    ),
    (
        "callback_url with credentials",
        with_product(callback_url="https://u:p@93.184.216.34/"),
        "products[0].callback_url",
    ),
    ("callback_url .invalid host", with_product(callback_url="https://hooks.invalid/"), "products[0].callback_url"),
    (
        "callback_url too long",
        with_product(callback_url="https://93.184.216.34/" + "a" * 2000),
        "products[0].callback_url",
    ),
    ("bad product deep in the batch", {"products": [*products(3), {**ONE, "price": -5}]}, "products[3].price"),
    (
        "bad callback deep in the batch",
        {"products": [*products(5), {**ONE, "product_code": "Z", "callback_url": "http://169.254.169.254/"}]},
        "products[5].callback_url",
    ),
]


def _assert_refused(response, status: int, code: ResultCode, field: str | None) -> dict:
    assert response.status_code == status, response.content[:300]
    body = response.json()
    assert body["result"] == code
    assert body["error"]
    if field is not None:
        assert body["field"] == field
    assert Job.objects.count() == 0
    return body


@pytest.mark.parametrize(
    ("raw", "status", "code", "field"), [case[1:] for case in BAD_BODIES], ids=[case[0] for case in BAD_BODIES]
)
def test_a_body_that_is_not_a_json_object_is_refused_and_writes_nothing(as_shop, raw, status, code, field):
    _assert_refused(as_shop.post("/v1/lps/search", raw=raw), status, code, field)


@pytest.mark.parametrize(("body", "field"), [case[1:] for case in BAD_JSON], ids=[case[0] for case in BAD_JSON])
def test_invalid_search_data_is_refused_naming_the_field_and_writes_nothing(as_shop, body, field):
    _assert_refused(as_shop.post("/v1/lps/search", body), 400, ResultCode.INVALID_REQUEST_DATA, field)


def test_one_bad_product_among_many_refuses_the_whole_batch(as_shop):
    body = {"products": [*products(999), {"product_code": "X", "product_name": "Y", "price": "1"}]}
    _assert_refused(as_shop.post("/v1/lps/search", body), 400, ResultCode.INVALID_REQUEST_DATA, "products[999].price")


def test_every_offending_field_is_listed_when_there_are_several(as_shop):
    body = {"products": [{"product_code": "", "product_name": "A", "price": -1}]}
    refused = _assert_refused(as_shop.post("/v1/lps/search", body), 400, ResultCode.INVALID_REQUEST_DATA, None)
    assert {error["field"] for error in refused["errors"]} == {"products[0].product_code", "products[0].price"}


def test_a_body_over_one_megabyte_is_413_and_writes_nothing(as_shop):
    body = json.dumps({"products": products(1), "padding": "x" * (1024 * 1024)})
    _assert_refused(as_shop.post("/v1/lps/search", raw=body), 413, ResultCode.HTTP_PAYLOAD_TOO_LARGE, None)


@pytest.mark.parametrize(
    # (A control character such as %00 is refused before any endpoint: tests/api/test_paths_and_methods.py.)
    "job_id",
    ["not-a-uuid", "12345", "0" * 33, "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", "'; DROP TABLE job;--"],
)
def test_a_job_id_that_is_not_a_uuid_is_400_naming_job_id(as_shop, as_operator, job_id):
    response = as_shop.get(f"/v1/lps/jobs/{job_id}")
    _assert_refused(response, 400, ResultCode.INVALID_REQUEST_DATA, "job_id")
    _assert_refused(as_operator.post(f"/v1/lps/jobs/{job_id}/requeue"), 400, ResultCode.INVALID_REQUEST_DATA, "job_id")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "LOST"}, "status"),
        ({"page": 0}, "page"),
        ({"page": "x"}, "page"),
        ({"page_size": 201}, "page_size"),
        ({"page_size": -1}, "page_size"),
        ({"q": "a\x00b"}, "q"),
        ({"q": "q" * 201}, "q"),
    ],
)
def test_bad_list_parameters_are_400_naming_the_parameter(as_operator, params, field):
    _assert_refused(as_operator.get("/v1/lps/jobs", **params), 400, ResultCode.INVALID_REQUEST_DATA, field)


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/v1/lps/products", {"page": "0"}, "page"),
        ("/v1/lps/products", {"q": "\x01"}, "q"),
        ("/v1/lps/stats/cost", {"hours": "0"}, "hours"),
        ("/v1/lps/stats/bot", {"hours": "100000"}, "hours"),
    ],
)
def test_bad_parameters_of_the_other_operator_lists_are_400(as_operator, path, params, field):
    _assert_refused(as_operator.get(path, **params), 400, ResultCode.INVALID_REQUEST_DATA, field)


def test_an_unknown_path_under_the_api_is_404_in_the_envelope(as_shop):
    _assert_refused(as_shop.get("/v1/lps/nothing-here"), 404, ResultCode.HTTP_NOT_FOUND, None)
    _assert_refused(as_shop.post("/v1/lps/search/", {"products": products(1)}), 404, ResultCode.HTTP_NOT_FOUND, None)


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/lps/search", "POST"),
        ("PUT", "/v1/lps/search", "POST"),
        ("DELETE", "/v1/lps/jobs/00000000-0000-0000-0000-000000000000", "GET"),
        ("POST", "/v1/lps/queue/stats", "GET"),
        ("GET", "/v1/lps/jobs/00000000-0000-0000-0000-000000000000/requeue", "POST"),
    ],
)
def test_a_method_an_endpoint_does_not_take_is_405_with_allow(client, shop, method, path, allowed):
    response = client.generic(method, path, headers={"X-API-Key": shop.api_key})
    _assert_refused(response, 405, ResultCode.HTTP_METHOD_NOT_ALLOWED, None)
    assert response["Allow"] == allowed


# --- Only JSON bodies, on every POST endpoint: 415 before anything is read or written ----------------------

SEARCH_BODY = json.dumps({"products": products(1)}).encode()
NOT_JSON = [
    # (case id, Content-Type header, body)
    ("text/plain", "text/plain", SEARCH_BODY),
    ("text/plain with charset", "text/plain; charset=utf-8", SEARCH_BODY),
    ("form", "application/x-www-form-urlencoded", b"products=A1"),
    (
        "multipart",
        "multipart/form-data; boundary=lps",
        b'--lps\r\nContent-Disposition: form-data; name="p"\r\n\r\nx\r\n--lps--',
    ),
    ("XML", "application/xml", b"<products><product_code>A1</product_code></products>"),
    ("text/xml", "text/xml", b"<products/>"),
    ("missing", "", SEARCH_BODY),
    ("octet-stream", "application/octet-stream", SEARCH_BODY),
    ("a JSON look-alike", "application/jsonp", SEARCH_BODY),
]


@pytest.fixture
def dead_job(db) -> uuid.UUID:
    """A DEAD job that an operator's requeue would move (so that a refused requeue visibly changed nothing)."""
    job = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "D1"}, max_attempts=1))
    (claimed,) = queue.claim("test-worker")
    queue.fail(claimed, "boom", retryable=False)
    return job.job_id


def _post_endpoints(shop, operator, dead_job) -> list[tuple[str, str, bytes | None]]:
    """Every POST endpoint, with a key that may call it and a body it would otherwise take (None: its own)."""
    return [
        ("/v1/lps/search", shop.api_key, None),
        (f"/v1/lps/jobs/{dead_job}/requeue", operator.api_key, b"{}"),
    ]


@pytest.mark.parametrize(("content_type", "body"), [case[1:] for case in NOT_JSON], ids=[case[0] for case in NOT_JSON])
def test_a_body_that_is_not_sent_as_json_is_415_naming_content_type_on_every_post_endpoint_and_writes_nothing(
    client, shop, operator, dead_job, content_type, body
):
    for path, api_key, own_body in _post_endpoints(shop, operator, dead_job):
        response = client.generic(
            "POST", path, own_body if own_body is not None and body is SEARCH_BODY else body,
            content_type=content_type, headers={"X-API-Key": api_key},
        )  # fmt: skip
        assert response.status_code == 415, (path, response.content[:300])
        refused = response.json()
        assert refused["result"] == ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE
        assert refused["field"] == "Content-Type"
        assert "Content-Type" in refused["error"]
        assert list(Job.objects.exclude(job_id=dead_job)) == []
        assert Job.objects.get(job_id=dead_job).status == JobStatus.DEAD


@pytest.mark.parametrize("charset", ["utf-16", "latin-1", "utf-32"])
def test_a_json_body_declared_in_a_charset_other_than_utf8_is_415(client, shop, charset):
    response = client.generic(
        "POST", "/v1/lps/search", SEARCH_BODY, content_type=f"application/json; charset={charset}",
        headers={"X-API-Key": shop.api_key},
    )  # fmt: skip
    refused = _assert_refused(response, 415, ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE, "Content-Type")
    assert charset in refused["error"]


def test_the_message_for_a_duplicated_key_names_the_key(as_shop):
    raw = b'{"products": [{"product_code": "DUP-2", "product_code": "DUP-3", "product_name": "B"}]}'
    refused = _assert_refused(as_shop.post("/v1/lps/search", raw=raw), 400, ResultCode.JSON_PARSE_ERROR, None)
    assert "'product_code' appears twice" in refused["error"]


def test_a_body_with_a_bom_is_refused_with_a_message_that_says_so(as_shop):
    refused = _assert_refused(
        as_shop.post("/v1/lps/search", raw=b"\xef\xbb\xbf" + SEARCH_JSON), 400, ResultCode.JSON_PARSE_ERROR, "body"
    )
    assert "byte-order mark" in refused["error"]


def test_a_two_megabyte_body_on_requeue_is_413_and_requeues_nothing(client, operator, dead_job):
    response = client.generic(
        "POST", f"/v1/lps/jobs/{dead_job}/requeue", b"{" + b" " * (2 * 1024 * 1024) + b"}",
        content_type="application/json", headers={"X-API-Key": operator.api_key},
    )  # fmt: skip
    assert response.status_code == 413, response.content[:300]
    assert response.json()["result"] == ResultCode.HTTP_PAYLOAD_TOO_LARGE
    assert Job.objects.get(job_id=dead_job).status == JobStatus.DEAD


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "GET", "OPTIONS"])
@pytest.mark.parametrize("path", ["/v1/lps/nothing-here", "/v1/lps/jobs/x/y/z", "/v1/elsewhere", "/v1/lps/search/"])
def test_an_unknown_path_under_v1_is_a_404_envelope_whatever_the_method(client, shop, method, path):
    csrf_client = type(client)(enforce_csrf_checks=True)
    response = csrf_client.generic(
        method, path, SEARCH_BODY, content_type="application/json", headers={"X-API-Key": shop.api_key}
    )
    assert response["Content-Type"].startswith("application/json")
    _assert_refused(response, 404, ResultCode.HTTP_NOT_FOUND, None)


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"])
def test_json_with_or_without_a_charset_parameter_is_taken(client, shop, content_type):
    response = client.generic(
        "POST", "/v1/lps/search", SEARCH_BODY, content_type=content_type, headers={"X-API-Key": shop.api_key}
    )
    assert response.status_code == 202, response.content
    assert Job.objects.count() == 1


def test_a_post_without_a_body_needs_no_content_type(client, operator, dead_job):
    response = client.generic(
        "POST", f"/v1/lps/jobs/{dead_job}/requeue", b"", content_type="", headers={"X-API-Key": operator.api_key}
    )
    assert response.status_code == 200
    assert Job.objects.get(job_id=dead_job).status == JobStatus.PENDING


# --- Content-Encoding: gzip is decoded under the same 1 MB limit; any other encoding is 415 ------------------


def _post_encoded(client, shop, body: bytes, encoding: str):
    return client.generic(
        "POST",
        "/v1/lps/search",
        body,
        content_type="application/json",
        headers={"X-API-Key": shop.api_key, "Content-Encoding": encoding},
    )


def test_a_gzip_body_is_decoded_and_taken(client, shop):
    response = _post_encoded(client, shop, gzip.compress(SEARCH_BODY), "gzip")
    assert response.status_code == 202, response.content
    assert Job.objects.get().payload["product_code"] == "P0"


def test_a_gzip_body_over_one_megabyte_once_decoded_is_413_and_writes_nothing(client, shop):
    padded = json.dumps({"products": products(1), "padding": " " * (1024 * 1024)}).encode()
    bomb = gzip.compress(padded)
    assert len(bomb) < 10_000
    _assert_refused(_post_encoded(client, shop, bomb, "gzip"), 413, ResultCode.HTTP_PAYLOAD_TOO_LARGE, None)


@pytest.mark.parametrize("body", [b"not gzip at all", gzip.compress(SEARCH_BODY)[:-12]], ids=["garbage", "truncated"])
def test_a_body_that_is_not_the_gzip_it_claims_is_400_naming_content_encoding(client, shop, body):
    response = _post_encoded(client, shop, body, "gzip")
    _assert_refused(response, 400, ResultCode.INVALID_REQUEST_DATA, "Content-Encoding")


@pytest.mark.parametrize(
    "trailer", [b"junk", b"\x00", gzip.compress(b'{"products": []}')], ids=["junk", "one NUL", "a second member"]
)
def test_a_gzip_body_with_bytes_after_its_stream_is_400_and_writes_nothing(client, shop, trailer):
    response = _post_encoded(client, shop, gzip.compress(SEARCH_BODY) + trailer, "gzip")
    refused = _assert_refused(response, 400, ResultCode.INVALID_REQUEST_DATA, "Content-Encoding")
    assert "after its gzip stream" in refused["error"]


@pytest.mark.parametrize("encoding", ["br", "deflate", "compress", "zstd", "gzip, br"])
def test_a_content_encoding_other_than_identity_or_gzip_is_415_naming_it(client, shop, encoding):
    response = _post_encoded(client, shop, SEARCH_BODY, encoding)
    _assert_refused(response, 415, ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE, "Content-Encoding")


def test_an_identity_content_encoding_is_the_body_as_is(client, shop):
    assert _post_encoded(client, shop, SEARCH_BODY, "identity").status_code == 202


# --- Every answer under /v1/ is the envelope, even for failures before any view ------------------------------


@pytest.mark.parametrize("path", ["/v1/lps/queue/stats", "/v1/lps/search", "/v1/elsewhere"])
def test_a_bad_host_header_on_the_api_is_400_in_the_envelope_naming_host(client, shop, path):
    response = client.get(path, headers={"X-API-Key": shop.api_key, "Host": "evil.example"})
    assert response["Content-Type"].startswith("application/json")
    _assert_refused(response, 400, ResultCode.INVALID_REQUEST_DATA, "Host")


def test_a_path_under_v1_outside_the_api_is_404_in_the_envelope(client):
    response = client.get("/v1/")
    assert response["Content-Type"].startswith("application/json")
    _assert_refused(response, 404, ResultCode.HTTP_NOT_FOUND, None)


def test_the_https_redirect_of_production_mode_is_the_envelope_with_its_location(client, shop, settings):
    settings.SECURE_SSL_REDIRECT = True

    response = client.get("/v1/lps/queue/stats", headers={"X-API-Key": shop.api_key})

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/v1/lps/queue/stats"
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {
        "result": ResultCode.FAIL,
        "error": "Moved Permanently: https://testserver/v1/lps/queue/stats",
    }
