"""The lifecycle the fake marketplaces share: an HTTP server on 127.0.0.1, served from a daemon thread."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar, Self


class LoopbackServer:
    """Start, stop and address a fake's server; a subclass names its request handler and what the handler calls it.

    `_release` is the event that a scripted slow answer waits on: stopping sets it, so no handler outlives the fake.
    """

    handler_attribute: ClassVar[str]
    """The handler reaches its fake as `self.<handler_attribute>`."""
    thread_name: ClassVar[str]

    def __init__(self) -> None:
        self._release = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The fake's request handler (a method, so that a module may define it below the fake)."""
        raise NotImplementedError

    def start(self, port: int = 0) -> Self:
        handler = type("Handler", (self.handler_class(),), {self.handler_attribute: self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        assert self._httpd is not None, f"the {self.thread_name} server is not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"
