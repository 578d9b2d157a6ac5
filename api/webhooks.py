"""The OUTBOX handler: deliver a finished search to the client's callback_url as a signed webhook.

The body is `{"job_id", "product_code", "result"}` (JSON, no nulls), signed with
`X-LPS-Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the client's webhook secret>`, and carries
`Idempotency-Key: <search job id>` so that a receiver can keep exactly one delivery per job whatever the
retries. Each attempt also carries `X-LPS-Timestamp: <unix seconds>` and
`X-LPS-Timestamp-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, for receivers that refuse old
(replayed) deliveries; the §8 signature is unchanged for those that do not. Any 2xx ends the job; any other
status, a redirect or a timeout raises a retryable error and the queue tries again with backoff until the job's
attempts are spent (then DEAD, requeueable by an operator).

A failed attempt's error says, to the client, the status and its standard reason ("HTTP 500 Internal Server
Error") or that the receiver could not be reached; what the receiver answered, and how the connection failed,
follow for operators only (jobs/client_view.py), so that a callback pointed at a local page
cannot read it back through the job's error, nor tell an open port from a closed one.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import logging
import socket
import ssl
import time
from http import HTTPStatus
from urllib.parse import urlsplit

from django.conf import settings

from api import metrics
from api.callbacks import CheckedCallback, check_callback_url
from api.envelope import dumps
from api.exceptions import (
    ApiError,
    WebhookRejected,
    WebhookUndeliverable,
    WebhookUnreachable,
)
from api.models import ApiClient
from api.outbox import WebhookDelivery
from jobs import handlers
from jobs.client_view import OPERATOR_DETAIL_MARK
from jobs.handlers import JobContext
from jobs.queue import ClaimedJob
from lps_site.job_types import JobType

log = logging.getLogger(__name__)

USER_AGENT = "LPS-Webhook/1"
MAX_ERROR_BODY = 200


def sign(body: bytes, secret: str) -> str:
    """Return the X-LPS-Signature value of `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signed_headers(body: bytes, secret: str, *, idempotency_key: str, attempt: int) -> dict[str, str]:
    """The headers of every webhook LPS sends: the §8 signature, and a timestamped one for replay protection."""
    timestamp = int(time.time())
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": USER_AGENT,
        "X-LPS-Signature": sign(body, secret),
        "X-LPS-Timestamp": str(timestamp),
        "X-LPS-Timestamp-Signature": sign_with_timestamp(body, secret, timestamp),
        "Idempotency-Key": idempotency_key,
        "X-LPS-Delivery-Attempt": str(attempt),
    }


def sign_with_timestamp(body: bytes, secret: str, timestamp: int) -> str:
    """Return the X-LPS-Timestamp-Signature value of `body` sent at `timestamp` (unix seconds)."""
    return "sha256=" + hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def _status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "non-standard status"


def webhook_body(
    search_job_id: str,
    product_code: str,
    result: dict | None,
    *,
    event: str | None = None,
    previous: dict | None = None,
) -> bytes:
    """The raw bytes that are signed and sent; `event` and `previous` name a later change of the answer
    (`"corrected"`, SPEC §10) and are left out of a search's own delivery."""
    body = {"event": event, "job_id": str(search_job_id), "product_code": product_code, "result": result}
    return dumps({**body, "previous": previous}).encode()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to an address checked beforehand, with the URL's host in the Host header."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.pinned_address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.pinned_address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to an address checked beforehand; the certificate is verified against the URL's host."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float):
        self.tls_context = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls_context)
        self.pinned_address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.pinned_address, self.port), self.timeout)
        self.sock = self.tls_context.wrap_socket(sock, server_hostname=self.host)


def post(callback: CheckedCallback, body: bytes, headers: dict[str, str], *, timeout: float) -> int:
    """POST `body` to the checked callback without following redirects; return the HTTP status.

    Tries the checked addresses in turn until one accepts the connection. Raises WebhookUnreachable.
    """
    connection_class = _PinnedHTTPSConnection if callback.scheme == "https" else _PinnedHTTPConnection
    last_error: Exception | None = None
    for address in callback.addresses:
        connection = connection_class(callback.host, callback.port, address=address, timeout=timeout)
        try:
            try:
                connection.connect()
            except OSError as exc:
                last_error = exc
                continue
            connection.request("POST", callback.target, body=body, headers=headers)
            response = connection.getresponse()
            status = response.status
            excerpt = response.read(MAX_ERROR_BODY) if not 200 <= status < 300 else b""
        except (OSError, http.client.HTTPException) as exc:
            raise _unreachable(callback, exc) from exc
        finally:
            connection.close()
        if not 200 <= status < 300:
            detail = excerpt.decode("utf-8", "replace").strip()
            raise WebhookRejected(
                f"the callback answered HTTP {status} {_status_phrase(status)}"
                + f"{OPERATOR_DETAIL_MARK}{callback.url} answered: {detail}"[:1000]
            )
        return status
    raise _unreachable(callback, last_error) from last_error


def _unreachable(callback: CheckedCallback, exc: BaseException | None) -> WebhookUnreachable:
    # One message for a refused connection, a timeout and a server that does not speak HTTP: they would tell a
    # client which local ports are open.
    return WebhookUnreachable(
        "the callback could not be reached (no connection, no answer in time, or not an HTTP answer)"
        + f"{OPERATOR_DETAIL_MARK}{callback.url}: {exc!r}"[:1000]
    )


def delivery_lane(job_type: JobType):
    """Register a webhook delivery handler (a search's result, a watch's events) in the light lane they share:
    deliveries are quick HTTP calls, so a worker claims a few rounds of them ahead of its free threads and one
    commit records a whole batch; LPS_OUTBOX_DEADLINE_SECONDS and LPS_OUTBOX_CONCURRENCY govern both."""
    return handlers.register(
        job_type,
        label=job_type.label,
        deadline_setting="LPS_OUTBOX_DEADLINE_SECONDS",
        concurrency_setting="LPS_OUTBOX_CONCURRENCY",
        prefetch_rounds=4,
    )


@delivery_lane(JobType.OUTBOX)
def deliver_search_result(job: ClaimedJob, context: JobContext) -> dict:
    """POST a finished search to its callback_url, signed; raise to have the queue retry.

    Its log lines name the search job too (`search_job_id`), so that one search can be followed from the POST
    that created it to the webhook that delivered it.
    """
    delivery = WebhookDelivery.from_json(job.payload)
    search_job_id = delivery.search_job_id
    # The host only: a callback URL's path or query may carry the client's own token.
    callback_host = urlsplit(delivery.callback_url).hostname or "?"
    try:
        delivered = _deliver(delivery, job, context)
    except ApiError as exc:
        final = not exc.retryable or job.attempt >= job.max_attempts
        metrics.record_failed(_attempt_result(exc), final=final)
        log.warning(
            "webhook for search job %s to %s failed on attempt %d/%d%s: %s",
            search_job_id,
            callback_host,
            job.attempt,
            job.max_attempts,
            " (given up)" if final else "",
            exc,
            extra={"search_job_id": search_job_id},
        )
        raise
    metrics.record_delivered(job.attempt)
    log.info(
        "webhook for search job %s delivered to %s: HTTP %d on attempt %d",
        search_job_id,
        callback_host,
        delivered["http_status"],
        job.attempt,
        extra={"search_job_id": search_job_id},
    )
    return delivered


def _attempt_result(exc: ApiError) -> str:
    if isinstance(exc, WebhookRejected):
        return "rejected"
    if isinstance(exc, WebhookUnreachable):
        return "unreachable"
    return "undeliverable"


def _deliver(delivery: WebhookDelivery, job: ClaimedJob, context: JobContext) -> dict:
    search_job_id = delivery.search_job_id
    client = ApiClient.objects.filter(pk=delivery.client_id).first()
    if client is None or not client.is_active:
        raise WebhookUndeliverable(f"the API client {delivery.client_id} is gone or revoked")
    # Checked again now: the host may resolve elsewhere than at submission (or the settings changed).
    callback = check_callback_url(delivery.callback_url)
    if delivery.result is None:
        raise WebhookUndeliverable(f"the OUTBOX job for search {search_job_id} carries no result")
    body = webhook_body(
        search_job_id, delivery.product_code, delivery.result, event=delivery.event, previous=delivery.previous
    )
    headers = signed_headers(body, client.webhook_secret, idempotency_key=delivery.key, attempt=job.attempt)
    timeout = max(1.0, min(settings.LPS_WEBHOOK_TIMEOUT_SECONDS, context.remaining()))
    status = post(callback, body, headers, timeout=timeout)
    return {"delivered": True, "http_status": status, "attempt": job.attempt, "search_job_id": search_job_id}
