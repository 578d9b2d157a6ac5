"""A watch as a client posts it: the SEARCH product fields (search/payload.py), `every` and `notify`, checked by one
model that the API validates with and derives its OpenAPI document from."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictFloat, StringConstraints
from pydantic_core import PydanticCustomError

from search.payload import SearchProduct

MIN_EVERY_SECONDS = 3600
MAX_EVERY_SECONDS = 7 * 86400
UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
# Exactly the values from 1 h to 7 d, so that the OpenAPI document says the whole rule: 60–10080 minutes, 1–168
# hours, 1–7 days or 1 week, without leading zeros.
EVERY_PATTERN = (
    r"^(?:(?:6[0-9]|[7-9][0-9]|[1-9][0-9]{2}|[1-9][0-9]{3}|100[0-7][0-9]|10080)m"
    r"|(?:[1-9]|[1-9][0-9]|1[0-5][0-9]|16[0-8])h|[1-7]d|1w)$"
)
# ASCII digits only, and nothing after the unit (`$` would let "6h\n" through; \d, "\u0666h").
_EVERY = re.compile(r"([0-9]{1,6})([mhdw])")

EventName = Literal["price_down", "price_up", "found", "not_found", "offer_changed", "undercut"]


def every_seconds(text: str) -> int:
    """`"6h"` → 21600; raise ValueError unless it is a whole number of m, h, d or w within 1 h … 7 d."""
    match = _EVERY.fullmatch(text)
    if match is None or (match.group(1).startswith("0")):
        raise ValueError("must be a number and a unit: m, h, d or w (e.g. 90m, 6h, 1d)")
    seconds = int(match.group(1)) * UNITS[match.group(2)]
    if not MIN_EVERY_SECONDS <= seconds <= MAX_EVERY_SECONDS:
        raise ValueError("must be from 1h to 7d")
    return seconds


def every_text(seconds: int) -> str:
    """21600 → `"6h"`: the largest unit that divides it."""
    for unit in ("w", "d", "h", "m"):
        if seconds % UNITS[unit] == 0:
            return f"{seconds // UNITS[unit]}{unit}"
    return f"{seconds}s"


def _valid_every(value: str) -> str:
    try:
        every_seconds(value)
    except ValueError as exc:
        raise PydanticCustomError("every_format", str(exc)) from None
    return value


def _number(value: object) -> object:
    # JSON has one number type: 5 is 5.0; true is not a number.
    if isinstance(value, bool):
        raise PydanticCustomError("float_type", "must be a number, not a boolean")
    if isinstance(value, int):
        return float(value)
    return value


# The pattern is documented (json_schema_extra) and checked by _valid_every, whose message says what is allowed.
Every = Annotated[str, StringConstraints(strict=True, max_length=6), AfterValidator(_valid_every)]
Percent = Annotated[StrictFloat, Field(ge=0, le=1000), BeforeValidator(_number)]


class NotifyIn(BaseModel):
    """Which changes send an event webhook. Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    events: list[EventName] | None = Field(
        None,
        max_length=6,
        description=(
            "Events to send; default price_down, price_up, found, not_found (offer_changed, and undercut — the "
            "market's lowest went below the product's own price —, only when asked)."
        ),
    )
    min_change_percent: Percent | None = Field(
        None, description="price_down and price_up only when the lowest price moved by at least this many percent."
    )


class WatchProduct(SearchProduct):
    """One product to keep priced: the fields of a search, how often, and which changes to hear about."""

    every: Every = Field(
        ...,
        description="How often to search it: 1h to 7d, as 90m, 6h, 1d, 1w.",
        json_schema_extra={"pattern": EVERY_PATTERN},
    )
    notify: NotifyIn | None = Field(None, description="Which changes send an event to the callback_url.")

    @property
    def every_seconds(self) -> int:
        return every_seconds(self.every)
