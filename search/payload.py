"""The SEARCH payload: one product as a client posts it and as its SEARCH job carries it, checked by one model.

The API validates each posted product with `SearchProduct` (the OpenAPI document is derived from it) and enqueues
`SearchPayload.as_payload()`; the handler reads the stored payload back with `SearchPayload.from_payload()`. What
the API promised clients and what a worker accepts therefore cannot drift apart.

Every field is checked strictly (no "12" for 12, no true for 1); unknown fields are ignored; null counts as absent
for the optional ones, and so does an empty brand or model code. The identifiers (product_code, product_name, brand,
model_code) carry no control or format characters (Unicode category Cf: zero-width characters, byte-order marks,
direction overrides such as U+202E, which would make the admin show "RTL\u202e-2" as something else), are
NFC-normalised (so that one product typed two ways is one product), and a product name has a letter or a digit.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from search.exceptions import InvalidProduct
from search.listings import ProductQuery

# The code points of Unicode's format characters and line and paragraph separators (categories Cf, Zl, Zp, as
# REFUSED_CATEGORIES below; tests/search/test_payload.py checks these ranges against unicodedata), so that the
# OpenAPI document's patterns refuse what the validators refuse and a client's generator never sends them.
REFUSED_RANGES = (
    (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2),
    (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
_NOT_SHOWN = r"\x00-\x1f\x7f-\x9f" + "".join(
    f"\\u{low:04x}-\\u{high:04x}" if high <= 0xFFFF else f"\\U{low:08x}-\\U{high:08x}" for low, high in REFUSED_RANGES
)
# At least one visible character and no control characters (PostgreSQL refuses NUL; the rest is noise).
TEXT_PATTERN = f"^[^{_NOT_SHOWN}]*[^\\s{_NOT_SHOWN}][^{_NOT_SHOWN}]*$"
# No control characters; may be empty.
OPTIONAL_TEXT_PATTERN = f"^[^{_NOT_SHOWN}]*$"
# http(s), any case, with no spaces or control characters: the host itself is vetted by the API (api/callbacks.py).
CALLBACK_URL_PATTERN = r"^[hH][tT][tT][pP][sS]?://[^\s\x00-\x1f\x7f]+$"
# The dedupe key "search:<client id>:<product_code>" has to fit the job table's varchar(255).
PRODUCT_CODE_MAX = 190
PRODUCT_NAME_MAX = 500
ATTRIBUTE_MAX = 200
CALLBACK_URL_MAX = 2000
# The largest price any integer column of the project can hold.
PRICE_MAX = 2_147_483_647
# The pydantic error types that mean "not an object".
OBJECT_ERRORS = ("model_type", "dict_type", "model_attributes_type")


# Letters that show nothing: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the blank braille pattern.
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Refused anywhere in an identifier or a note: format characters (Cf: zero-width characters, BOM, direction
# overrides such as U+202E) and the line and paragraph separators U+2028/U+2029 (Zl, Zp), which break a line.
REFUSED_CATEGORIES = ("Cf", "Zl", "Zp")


def _refused(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES


def _shows(char: str) -> bool:
    category = unicodedata.category(char)
    return not (char.isspace() or category in REFUSED_CATEGORIES or category[0] == "M" or char in BLANK_CHARACTERS)


def has_visible_character(text: str) -> bool:
    """Whether `text` shows anything once Unicode-normalised: spaces (the no-break space too), format characters
    (category Cf: zero-width space U+200B, BOM U+FEFF, direction marks, …), combining marks on nothing and the
    blank letters (Hangul fillers, the blank braille pattern) do not count."""
    return any(_shows(char) for char in unicodedata.normalize("NFKC", text))


def _strip(value: str) -> str:
    return value.strip()


def refuse_format_characters(value: str) -> str:
    for char in value:
        if _refused(char):
            raise PydanticCustomError(
                "string_format_character",
                f"must not contain invisible format or direction characters (U+{ord(char):04X})",
            )
    return value


def _nfc(value: str) -> str:
    return unicodedata.normalize("NFC", value)


def _has_letter_or_digit(value: str) -> str:
    # A name of combining marks or punctuation alone is nothing a marketplace can search for.
    if not any(unicodedata.category(char)[0] in "LN" and char not in BLANK_CHARACTERS for char in value):
        raise PydanticCustomError("string_no_letter", "must contain a letter or a digit")
    return value


def _visible(value: str) -> str:
    # A name of zero-width characters passes the pattern yet would cost a full search of nothing.
    if not has_visible_character(value):
        raise PydanticCustomError("string_pattern_mismatch", "must contain a visible character")
    return value


def _at_most(max_length: int):
    def check(value: str) -> str:
        # Checked again once normalised: NFC may lengthen a text (U+FB2C is three code points in NFC), and what is
        # stored, keyed and compared is the normalised text.
        if len(value) > max_length:
            raise PydanticCustomError(
                "string_too_long",
                "String should have at most {max_length} characters once Unicode-normalised (NFC)",
                {"max_length": max_length},
            )
        return value

    return AfterValidator(check)


def _bounded(required: bool, max_length: int, *, name: bool = False) -> Any:
    pattern = TEXT_PATTERN if required else OPTIONAL_TEXT_PATTERN
    constraints = StringConstraints(
        strict=True, min_length=1 if required else 0, max_length=max_length, pattern=pattern
    )
    checks = [AfterValidator(refuse_format_characters), AfterValidator(_nfc), _at_most(max_length)]
    if required:
        checks.append(AfterValidator(_visible))
    if name:
        checks.append(AfterValidator(_has_letter_or_digit))
    return Annotated[str, constraints, *checks, AfterValidator(_strip)]


def _whole_number(value: Any) -> Any:
    # JSON has one number type: 15000.0 is the integer 15000 (JSON Schema agrees); true is not a number.
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "must be an integer, not a boolean")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Price = Annotated[StrictInt, Field(ge=0, le=PRICE_MAX), BeforeValidator(_whole_number)]
ProductCode = _bounded(True, PRODUCT_CODE_MAX)
ProductName = _bounded(True, PRODUCT_NAME_MAX, name=True)
Attribute = _bounded(False, ATTRIBUTE_MAX)
CallbackUrl = Annotated[str, StringConstraints(strict=True, max_length=CALLBACK_URL_MAX, pattern=CALLBACK_URL_PATTERN)]


MarketplaceName = Literal["coupang", "naver"]


def _configured_marketplaces(names: list[str] | None) -> list[str] | None:
    # Checked where the product is validated (the API, then the worker): a marketplace this deployment does not
    # search is refused before any job exists, rather than silently left out of the answer.
    if names is None:
        return None
    from search.marketplaces import configured

    offered = configured()
    for name in names:
        if name not in offered:
            raise PydanticCustomError(
                "marketplace_unconfigured",
                "{name} is not configured on this deployment (it searches {offered})",
                {"name": name, "offered": ", ".join(offered)},
            )
    return list(dict.fromkeys(names))


def _offered_enum(schema: dict) -> None:
    # The OpenAPI document names what this deployment accepts: Naver appears only where its keys are set.
    from search.marketplaces import configured

    offered = configured()

    def narrow(node: object) -> None:
        if isinstance(node, dict):
            if "coupang" in (node.get("enum") or ()):
                node["enum"] = list(offered)
            for value in node.values():
                narrow(value)
        elif isinstance(node, list):
            for value in node:
                narrow(value)

    narrow(schema)


class SearchProduct(BaseModel):
    """One product to search. Unknown fields are ignored; null counts as absent for the optional ones."""

    # A plain pydantic model rather than a ninja Schema: ninja's Schema reads attributes of any object, so a
    # product sent as a string would be reported as missing fields instead of "not an object".
    model_config = ConfigDict(extra="ignore", frozen=True)

    product_code: ProductCode = Field(
        description="The client's own product code (its SKU); one active search per client and code."
    )
    product_name: ProductName = Field(description="The name searched on the marketplace.")
    model_code: Attribute | None = Field(None, description="Manufacturer model code; sharpens matching.")
    brand: Attribute | None = Field(None, description="Brand; sharpens matching.")
    price: Price | None = Field(None, description="The client's own price in won.")
    callback_url: CallbackUrl | None = Field(
        None,
        description=(
            "http(s) URL that receives the result as a signed webhook. Hosts resolving to link-local or cloud "
            "metadata addresses are refused; loopback and private ones unless LPS_ALLOW_PRIVATE_CALLBACKS=true."
        ),
    )
    marketplaces: Annotated[list[MarketplaceName], AfterValidator(_configured_marketplaces)] | None = Field(
        None,
        min_length=1,
        json_schema_extra=_offered_enum,
        description=(
            "The marketplaces to search, among those the deployment configures (Naver needs its API keys); "
            "absent: every configured one. When sent, each listing names its marketplace and the result has "
            "by_marketplace."
        ),
    )


@dataclass(frozen=True)
class SearchPayload:
    """A SEARCH job's payload: the product to search, where its result goes, and which API client owns it."""

    product: ProductQuery
    callback_url: str | None = None
    client_id: int | None = None
    """The API client whose job this is; None for jobs enqueued outside the API."""
    marketplaces: tuple[str, ...] | None = None
    """The marketplaces the client asked for by name; None: every configured one."""
    fresh: bool = False
    """Searched in a browser whatever is remembered (a watch's "run now"): no reused result, no negative cache."""

    @classmethod
    def from_product(cls, product: SearchProduct, *, client_id: int | None) -> SearchPayload:
        """The payload of a validated product; empty optional fields count as absent."""
        return cls(
            ProductQuery(
                product_code=product.product_code,
                product_name=product.product_name,
                brand=product.brand or None,
                model_code=product.model_code or None,
                price=product.price,
            ),
            callback_url=product.callback_url or None,
            client_id=client_id,
            marketplaces=tuple(product.marketplaces) if product.marketplaces is not None else None,
        )

    @classmethod
    def from_payload(cls, payload: object) -> SearchPayload:
        """Read a stored SEARCH payload back; raise InvalidProduct naming the first bad field."""
        if not isinstance(payload, dict):
            raise InvalidProduct(f"the payload must be a JSON object, not {type(payload).__name__}")
        try:
            product = SearchProduct.model_validate(payload)
        except ValidationError as exc:
            error = exc.errors()[0]
            raise InvalidProduct(error_message(error, ".".join(map(str, error["loc"])))) from exc
        client_id = payload.get("client_id")
        if client_id is not None and (isinstance(client_id, bool) or not isinstance(client_id, int)):
            raise InvalidProduct(f"client_id must be an API client's id, not {client_id!r}")
        searched = cls.from_product(product, client_id=client_id)
        return replace(searched, fresh=True) if payload.get("fresh") is True else searched

    def as_payload(self) -> dict:
        """The JSON the job carries; absent fields are left out."""
        product = self.product
        payload: dict[str, Any] = {"product_code": product.product_code, "product_name": product.product_name}
        for name, value in (
            ("brand", product.brand),
            ("model_code", product.model_code),
            ("callback_url", self.callback_url),
            ("price", product.price),
            ("client_id", self.client_id),
        ):
            if value is not None:
                payload[name] = value
        if self.marketplaces is not None:
            payload["marketplaces"] = list(self.marketplaces)
        if self.fresh:
            payload["fresh"] = True
        return payload


def error_message(error: Mapping[str, Any], field: str) -> str:
    """A pydantic validation error on `field` as a sentence that names the field."""
    kind = error.get("type", "")
    if kind == "missing":
        return f"{field} is required"
    if kind == "string_pattern_mismatch":
        if field.endswith("callback_url"):
            return f"{field} must be an http:// or https:// URL without spaces or control characters"
        refused = next((char for char in str(error.get("input", "")) if _refused(char)), None)
        if refused is not None:
            return f"{field}: must not contain invisible format or direction characters (U+{ord(refused):04X})"
        return f"{field} must contain a visible character and no control characters"
    if kind in OBJECT_ERRORS:
        return f"{field} must be a JSON object"
    return f"{field}: {error.get('msg', 'invalid value')}"
