"""Who vets a watch's callback_url where the watches app takes watches in itself (a sheet, in the admin or the API).

The app that delivers a watch's events (the API) owns the check of a callback host: private and loopback addresses
per LPS_ALLOW_PRIVATE_CALLBACKS, metadata and link-local ones always. It registers that check here, from its app
config, so that a sheet an operator imports in the admin refuses exactly the hosts the API refuses, with the same
messages, without the watches app importing the API. With no check registered every callback is refused: a host
nobody vetted is never stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Key = TypeVar("Key")

CallbackRefusals = Callable[[Sequence[tuple[Key, str | None]]], list[tuple[Key, str]]]
"""Given (key, callback URL) pairs, the (key, why) of each refused one, in order (the caller's keys kept)."""

UNVETTED = "no check of callback hosts is registered, so no callback_url can be accepted"

_refusals: CallbackRefusals | None = None


def register(refusals: CallbackRefusals) -> None:
    """Name the check of callback URLs (the last registration wins)."""
    global _refusals
    _refusals = refusals


def refusals(callback_urls: Sequence[tuple[Key, str | None]]) -> list[tuple[Key, str]]:
    """The (key, why) of each refused callback URL of `callback_urls` (empty ones pass)."""
    wanted = [(key, url) for key, url in callback_urls if url]
    if not wanted:
        return []
    if _refusals is None:
        return [(key, UNVETTED) for key, _ in wanted]
    return _refusals(wanted)
