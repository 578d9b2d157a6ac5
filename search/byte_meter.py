"""Counting the bytes a session's tab received, as a proxy bills them, from Chromium's network events.

Separate from the crawler because the bookkeeping is pure (events in, a total out; no browser, no database)
and subtle: a page is read before its late requests are done, so a take hands over only what arrived since
the last one and the rest lands on the next.
"""

from __future__ import annotations

from collections import Counter


class ByteMeter:
    """Bytes received over the network by a session's tab, from Chromium's network events: encoded bodies
    (gzip as it travelled, not the decoded page) plus headers, as a proxy bills them.

    `take()` hands over what arrived since the last take. A page is read before its deferred scripts and late
    requests are done, so what they bring after the read is taken by the session's next fetch (or its end):
    no byte goes uncounted, and the sum over a session is what it cost. Only http(s) requests count: data:
    URLs never touch the wire, and neither does the error page Chromium shows after a request fails."""

    def __init__(self):
        self.networked: set[str] = set()
        self.finished: dict[str, int] = {}
        self.partial: dict[str, int] = {}
        self.taken: dict[str, int] = {}
        """What an unfinished request had brought when last taken."""
        self.blocked: Counter[str] = Counter()
        """Requests Chromium refused by URL pattern since the last take, by resource type ("font", "media", …)."""
        self.expected: dict[str, int] = {}
        """Bodies known to have arrived before Chromium reports them: a document read as served, by Content-Length."""
        self.settled: set[str] = set()
        """Requests finished and taken: their cost is counted, and nothing said of them later adds to it."""

    @property
    def under_way(self) -> int:
        """Requests started and not yet reported done. Chromium reports a subresource's end from the tab's
        renderer: one the tab leaves before that (the next navigation) may never be reported, and what it
        brought goes unbilled, though the body may sit complete in the session's cache."""
        return len(self.networked - self.finished.keys())

    def expect(self, request_id: str, size: int) -> None:
        """`request_id`'s body (`size` bytes on the wire) has arrived: charge it to this take, not a later one.
        A document read late, after Chromium reported it finished and a take billed it, is billed already."""
        if request_id in self.settled:
            return
        self.networked.add(request_id)
        self.expected[request_id] = size

    def on_failed(self, event: dict) -> None:
        # What arrived before the failure is all this request will ever cost.
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.networked.discard(request_id)
            # A document read as served and then left (the next visit's navigation) did travel in full.
            self.finished[request_id] = max(self.partial.get(request_id, 0), self.expected.get(request_id, 0))
        if event.get("blockedReason"):
            self.blocked[str(event.get("type") or "other").lower()] += 1

    def on_request(self, event: dict) -> None:
        url = (event.get("request") or {}).get("url") or ""
        if url.startswith(("http://", "https://")):
            self.networked.add(event.get("requestId", ""))

    def on_served_from_cache(self, event: dict) -> None:
        """The tab took the request from its memory cache: nothing crosses the wire. Chromium still reports its
        response with the size it had when it travelled (and its end with 0), so a take between the two would
        bill a cached script in full."""
        request_id = event.get("requestId", "")
        self.networked.discard(request_id)
        self.partial.pop(request_id, None)

    def on_response(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            headers = int((event.get("response") or {}).get("encodedDataLength") or 0)
            self.partial[request_id] = self.partial.get(request_id, 0) + headers

    def on_data(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.partial[request_id] = self.partial.get(request_id, 0) + int(event.get("encodedDataLength") or 0)

    def on_finished(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.finished[request_id] = int(event.get("encodedDataLength") or 0)

    def take(self) -> tuple[int, Counter[str]]:
        """Bytes received and requests blocked since the last take; forgets the requests that are done."""
        # A finished request reports its full size; one still under way (or cut off) counts what arrived.
        size = 0
        for request_id, finished in self.finished.items():
            size += max(0, finished - self.taken.pop(request_id, 0))
            self.partial.pop(request_id, None)
            self.expected.pop(request_id, None)
            self.networked.discard(request_id)
        self.settled |= self.finished.keys()
        self.finished.clear()
        for request_id in self.partial.keys() | self.expected.keys():
            arrived = max(self.partial.get(request_id, 0), self.expected.get(request_id, 0))
            size += max(0, arrived - self.taken.get(request_id, 0))
            self.taken[request_id] = max(arrived, self.taken.get(request_id, 0))
        blocked, self.blocked = self.blocked, Counter()
        return size, blocked
