"""The proxies IP sessions go out through: one entry of LPS_PROXIES read into a Proxy, or none (DIRECT).

Separate from the crawler because reading an entry is pure (no browser, no database) and its one rule matters
on its own: an operator sees host:port, never the credentials, not even in an error about a bad entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True)
class Proxy:
    """One proxy endpoint of LPS_PROXIES (`scheme://[user:password@]host:port`), or none ("direct")."""

    label: str
    """What operators see: host:port, never the credentials."""
    server: str | None = None
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Proxy:
        """Read one LPS_PROXIES entry; "direct" (or "") means no proxy. Raise ValueError on a bad entry."""
        spec = str(spec).strip()
        if spec.lower() in ("", "direct", "none"):
            return DIRECT
        if "://" not in spec:
            spec = f"http://{spec}"
        parts = urlsplit(spec)
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https", "socks4", "socks5") or not parts.hostname or port == -1:
            # Never echo the entry itself: it may hold a password.
            raise ValueError(f"not a proxy URL (scheme://host:port): {parts.scheme}://{parts.hostname or ''}…")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        label = f"{host}:{port}" if port else host
        return cls(
            label=label,
            server=f"{parts.scheme}://{label}",
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )

    def playwright_settings(self) -> dict | None:
        if self.server is None:
            return None
        proxy = {"server": self.server}
        if self.username:
            proxy["username"] = self.username
            proxy["password"] = self.password or ""
        return proxy


DIRECT = Proxy(label="direct")
