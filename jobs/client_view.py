"""What a client may read of a failure: the one place that decides it, for every stored error a client is shown.

A stored error (a job's last_error, a watch event's last_error) is written for operators, and some of what they
need must never reach a client: what a webhook receiver answered (a callback pointed at a local admin page would
read that page back), how a connection failed (an open port told from a closed one), which setting of the
deployment is wrong (NAVER_CLIENT_ID). Whoever writes such an error puts what a client may read first and the
rest after OPERATOR_DETAIL_MARK (`with_operator_detail`); the admin shows the whole text.

Every endpoint that shows a client an error, and every webhook that carries one, reads it through `client_text`:
the part before the mark, its first line only (a traceback or a browser's call log is never a client's), at most
CLIENT_TEXT_MAX_CHARS. jobs/ knows no product: the rule is about text, so that every app's failures follow it.
"""

from __future__ import annotations

OPERATOR_DETAIL_MARK = "\n[for operators] "
CLIENT_TEXT_MAX_CHARS = 300


def with_operator_detail(said: str, detail: str) -> str:
    """An error that says `said` to a client and `detail` besides to operators."""
    return f"{said}{OPERATOR_DETAIL_MARK}{detail}"


def client_text(error: str | None) -> str | None:
    """A stored error as a client may read it: what precedes OPERATOR_DETAIL_MARK, its first line, bounded."""
    if not error:
        return error
    said = error.split(OPERATOR_DETAIL_MARK, 1)[0]
    first_line = said.splitlines()[0] if said.strip() else ""
    return first_line.strip()[:CLIENT_TEXT_MAX_CHARS]
