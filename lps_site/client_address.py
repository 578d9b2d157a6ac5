"""The address of the client behind the proxies this deployment trusts (for the admin's login throttling).

Behind a load balancer every connection comes from the balancer, so REMOTE_ADDR alone would lock every operator
out after one person's failures. Each trusted proxy appends the address it received the request from to
X-Forwarded-For; with LPS_TRUSTED_PROXIES = n the client is the n-th entry from the right. Entries further left
were written by the client itself and prove nothing, so they are never used.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """The client's address: REMOTE_ADDR, or the entry X-Forwarded-For's trusted proxies vouch for."""
    proxies = settings.LPS_TRUSTED_PROXIES
    remote = request.META.get("REMOTE_ADDR") or None
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if len(forwarded) < proxies:
        # Fewer hops than proxies: the request did not come through all of them; trust only the connection.
        return remote
    return forwarded[-proxies]
