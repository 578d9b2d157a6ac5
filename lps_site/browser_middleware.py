"""The browser's sessions, users and messages, left out of the API's paths.

The API (`/v1/`) authenticates by API key and answers JSON: it reads no session, user or flash message. Django's
middlewares still did their bookkeeping on each of its requests (a session store, a lazy user, a message store
read back on the way out). Each class here is Django's own, doing nothing on an API path and exactly what it did
before everywhere else: the admin, its login and the dashboard are unchanged. Django's system checks find them as
the subclasses they are (admin.E408–E410), and the sessions' cookie checks go by the installed app.

CSRF and X-Frame-Options stay Django's own classes under their own names (lps_site/settings.py): `check --deploy`
looks them up by name to check CSRF_COOKIE_SECURE and X_FRAME_OPTIONS, and on an API path they cost next to nothing
(every API view is CSRF-exempt).
"""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse

API_PREFIX = "/v1/"
"""The API's paths: defined here, on the floor below the apps, for the API's envelope (api/middleware.py), the
console's Content-Security-Policy and the middlewares here to tell them apart from the browser's."""


class _NotOnApiPaths:
    """Run the middleware it is mixed into on every path but the API's, which go straight to the next one."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            return self.get_response(request)
        return super().__call__(request)


class BrowserSessionMiddleware(_NotOnApiPaths, SessionMiddleware):
    """Django's sessions, for the admin."""


class BrowserAuthenticationMiddleware(_NotOnApiPaths, AuthenticationMiddleware):
    """`request.user`, for the admin."""


class BrowserMessageMiddleware(_NotOnApiPaths, MessageMiddleware):
    """The admin's flash messages."""
