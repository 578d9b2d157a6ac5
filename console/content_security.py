"""A Content-Security-Policy on every page outside the API (the admin, its login and lockout pages, the dashboard).

The admin shows what clients and marketplaces wrote (product names, listing titles, a webhook receiver's answer):
Django escapes it, and the policy is the second line if an escape is ever missed. Scripts and styles load from this
site only; the few inline blocks the console has (its stylesheet, the dashboard's refresh) carry the request's
nonce, `{{ request.csp_nonce }}`. The charts are SVG drawn on the server and styled by classes, so they need
nothing more. No page may be framed, post a form elsewhere, or load plugins.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from lps_site.browser_middleware import API_PREFIX


def policy(nonce: str) -> str:
    """The header's value for a page whose inline blocks carry `nonce`."""
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}'",
            f"style-src 'self' 'nonce-{nonce}'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    """Give each page request a nonce and send the policy with it (the JSON API needs none)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            return self.get_response(request)
        request.csp_nonce = secrets.token_urlsafe(16)
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy(request.csp_nonce)
        return response
