"""The one place that talks to OpenAI: the judge's call, the keyword generator's call, and what they cost.

Both calls use structured outputs: by default a pydantic model sent as a strict JSON schema (`json_schema`, which
OpenAI, vLLM, llama.cpp's server and Ollama enforce); for an endpoint that offers only JSON mode (`json_object`),
the schema is written into the system message and the answer is validated with the same pydantic model, a bad
one an LlmBadResponse (LPS_LLM_OUTPUT_MODE chooses). Every openai error is translated here into
search.exceptions; no openai type leaves this module.
"""

from __future__ import annotations

import json
import logging
from typing import TypeVar

import openai
import pydantic
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from pydantic import BaseModel, ConfigDict, Field

from search import metrics
from search.exceptions import LlmBadResponse, LlmRejected, LlmUnavailable
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, TokenUsage, Verdict

logger = logging.getLogger(__name__)

Answer = TypeVar("Answer", bound=BaseModel)

REASON_MAX_CHARS = 200
QUERY_MAX_CHARS = 100
# openai retries these itself; when they still fail the endpoint is down or overloaded, not wrong.
RETRYABLE_STATUSES = frozenset({408, 409, 429})
OUTPUT_MODES = ("json_schema", "json_object")
"""json_schema: strict structured outputs; json_object: JSON mode, the answer validated here."""

JUDGE_INSTRUCTIONS = """\
You check listings from Coupang, a Korean marketplace, against one product a shop sells. A listing is the same \
product only when it sells a NEW unit of exactly this product as the shop describes it:
- the same brand, model and version (same model code when one is given; a regional or colour suffix such as \
SM-S928N → SM-S928NZKEKOO is the same model): Buds2 ≠ Buds2 Pro ≠ Buds2 FE, Series 9 ≠ Series 10, \
13 ≠ 13 Pro ≠ 13 mini, XM5 ≠ XM4;
- the same capacity or size (256GB, 500ml, 1.5L, 65인치, 6인용), flavour, line or edition (펩시 제로 ≠ 펩시 제로 \
라임, 백미밥 ≠ 흑미밥, 디스크 에디션 ≠ 디지털 에디션) and colour where the product states them;
- the same pack count, by arithmetic: 1+1 = 2, 2+1 = 3, "5개입, 8개" = 40, 30개 = 30개입 = x 30, "100매 5팩 x 2" \
= 1000매; a listing that states no count sells one unit.
Names match in any script and spacing: PlayStation = 플레이스테이션, Galaxy = 갤럭시, AirPods = 에어팟, \
갤럭시북4 = 갤럭시 북4, 100매입 = 100매.
Text after a comma is usually the option the buyer picked (", 블랙, 1개"): part of the title, a match when it \
restates the product.
NOT the product: accessories, parts and consumables for it (케이스, 커버, 필름, 강화유리, 거치대, 충전기, \
케이블, 스트랩, 이어팁, 필터, 리필, 배터리) even when they carry its name or model code ("SM-R630 전용 이어팁", \
"V12 호환 필터", "에어팟용 케이스"); items marked 호환, 전용, 교체용 or "…용"; used, refurbished, display, returned \
or open-box units (중고, 리퍼, 리퍼비시, 전시, 전시상품, 반품, 개봉, 박스훼손, 테스터, S급/A급/B급, 공기계); other \
models and other brands — unless the product itself is such an item.
NOT a price of the product either: a rental, subscription or contract offer (렌탈, 구독, 약정, 대여, \
"월 29,900원"), whose price is a fee, not a purchase; a set or bundle that adds another product or a second unit \
the shop did not ask for (A + B 세트, 2대 세트); another size (shoes 260 vs 270, clothes M vs L, 퀸 vs 킹); a \
look-alike or substitute from another maker (대체, 스타일, 호환, OEM); a sibling whose model code extends ours by a \
letter or two.
A free gift or what comes in the box ("(+케이스 증정)", "사은품", "+ 부착키트") does not change what is sold; nor \
does a notice about the stock: food near its best-before date (유통기한 임박, 소비기한 임박, 임박상품) is a NEW \
unit, the same product when the rest matches. Seller tags and shipping words ([당일발송], [공식판매처], 무료배송) \
are harmless.
What a listing says beyond the product is evidence, never noise: a word or number the product does not have and \
that is not a harmless mark (정품, 국내정발, plain descriptions) makes a match doubtful, \
above all a flavour, line or edition word beside the name or glued to it. A matching model code is strong evidence, \
not proof: it does not outweigh such words.
The user message is JSON: the product, then the candidates with their index, title and price in won; a \
candidate may carry `read`, what LPS's rules read in its title (model codes, count, measures, sizes, extra_words the \
product lacks, condition, rental, accessory and made-for words), and `rules`, why the rules could not decide. \
They are hints: the title decides. \
shop_price_won, when given, is the shop's own price: a listing far below it needs more evidence, not less (an \
accessory, a part, a used unit or a monthly fee). A wrong match is worse than none: when in doubt, same_product \
is false.
Return one verdict per candidate, each index exactly once: same_product, confidence (0 to 1) in that verdict, \
and a reason of at most 12 words."""

REFINE_INSTRUCTIONS = """\
A search on Coupang, a Korean marketplace, found no listing of this product. Write two new search queries \
in the words Korean shoppers and sellers use:
- precise: the fewest words that identify exactly this product — brand and model code when known, otherwise \
brand, product line and model number;
- broad: the product's brand and kind without qualifiers (no colour, capacity, pack count or notes in \
brackets), to find listings titled differently.
Each query has at most 8 words and differs from every query already tried. The user message is JSON: the \
product and the queries tried."""


# The answer models' class names are the schema names the endpoint sees; they carry no docstring because
# pydantic would send it along as the schema's description, paid for in tokens on every call.
class VerdictAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int
    same_product: bool
    confidence: float = Field(ge=0, le=1)
    reason: str


class JudgeAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdicts: list[VerdictAnswer]


class RefineAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    precise: str
    broad: str


def ai_cost_usd(usage: TokenUsage) -> float:
    """USD cost of `usage` at the configured per-million-token prices."""
    return usage.cost_usd(
        input_usd_per_1m=settings.LPS_AI_INPUT_USD_PER_1M_TOKENS,
        output_usd_per_1m=settings.LPS_AI_OUTPUT_USD_PER_1M_TOKENS,
    )


class LlmClient:
    """The judge and the keyword generator over one OpenAI (or compatible) endpoint.

    Thread-safe (the openai client is); close() it, or use it as a context manager, when done.
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_seconds: float = 30.0,
        max_retries: int = 2,
        judge_model: str = "gpt-4o-mini",
        keyword_model: str = "gpt-4o-mini",
        output_mode: str = "json_schema",
    ):
        if output_mode not in OUTPUT_MODES:
            raise ImproperlyConfigured(
                f"LPS_LLM_OUTPUT_MODE must be one of {', '.join(OUTPUT_MODES)}, not {output_mode!r}"
            )
        self.output_mode = output_mode
        self.judge_model = judge_model
        self.keyword_model = keyword_model
        self.timeout_seconds = timeout_seconds
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout_seconds, max_retries=max_retries
        )

    @classmethod
    def from_settings(cls) -> LlmClient | None:
        """A client configured from settings, or None when no OPENAI_API_KEY is set (the rules decide then)."""
        if not settings.OPENAI_API_KEY:
            return None
        return cls(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout_seconds=settings.LPS_OPENAI_TIMEOUT_SECONDS,
            max_retries=settings.LPS_OPENAI_MAX_RETRIES,
            judge_model=settings.LPS_JUDGE_MODEL,
            keyword_model=settings.LPS_KEYWORD_MODEL,
            output_mode=settings.LPS_LLM_OUTPUT_MODE,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LlmClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @staticmethod
    def cost_usd(usage: TokenUsage) -> float:
        return ai_cost_usd(usage)

    def judge(
        self, product: ProductQuery, candidates: list[Listing], *, evidence: list[dict] | None = None
    ) -> Judgement:
        """Judge every candidate against `product` in one chat completion; `evidence`, one dict per candidate, is
        what the rules read of it (search/evidence.py), sent beside its title."""
        if not candidates:
            return Judgement(verdicts=[], judge="llm")
        read = evidence or [{} for _ in candidates]
        asked = {
            "product": _product_json(product),
            "candidates": [
                {"index": index, "title": listing.title, "price_won": listing.price} | read[index]
                for index, listing in enumerate(candidates)
            ],
        }
        answer, usage = self._complete(self.judge_model, JUDGE_INSTRUCTIONS, asked, JudgeAnswer)
        indexes = sorted(verdict.index for verdict in answer.verdicts)
        if indexes != list(range(len(candidates))):
            raise LlmBadResponse(
                f"the judge answered for candidates {indexes}, not for each of 0..{len(candidates) - 1} once",
                usage=usage,
            )
        verdicts = [
            Verdict(
                index=verdict.index,
                same_product=verdict.same_product,
                confidence=verdict.confidence,
                reason=verdict.reason.strip()[:REASON_MAX_CHARS],
            )
            for verdict in sorted(answer.verdicts, key=lambda verdict: verdict.index)
        ]
        return Judgement(verdicts=verdicts, usage=usage, judge="llm")

    def refine(self, product: ProductQuery, tried_queries: list[str]) -> RefinedQueries:
        """Ask, in one chat completion, for a precise and a broad query that were not tried yet."""
        asked = {"product": _product_json(product), "tried": list(tried_queries)}
        answer, usage = self._complete(self.keyword_model, REFINE_INSTRUCTIONS, asked, RefineAnswer)
        precise, broad = _one_line(answer.precise), _one_line(answer.broad)
        if not precise or not broad:
            raise LlmBadResponse("the keyword generator left a query empty", usage=usage)
        return RefinedQueries(precise=precise, broad=broad, usage=usage, source="llm")

    def _complete(
        self, model: str, instructions: str, asked: dict, answer_type: type[Answer]
    ) -> tuple[Answer, TokenUsage]:
        """One structured chat completion: the parsed answer and its token usage, or a search exception."""
        if self.output_mode == "json_object":
            instructions = f"{instructions}\n{_json_mode_instruction(answer_type)}"
        messages = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": json.dumps(asked, ensure_ascii=False)},
        ]
        try:
            if self.output_mode == "json_object":
                raw = self._client.chat.completions.with_raw_response.create(
                    model=model, messages=messages, response_format={"type": "json_object"}
                )
            else:
                raw = self._client.chat.completions.with_raw_response.parse(
                    model=model, messages=messages, response_format=answer_type
                )
        except openai.APITimeoutError as exc:
            raise LlmUnavailable(f"{model} did not answer within {self.timeout_seconds:g} s") from exc
        except openai.APIConnectionError as exc:
            raise LlmUnavailable(f"cannot reach the LLM endpoint: {exc}") from exc
        except openai.APIStatusError as exc:
            detail = f"the LLM endpoint answered HTTP {exc.status_code}: {_error_message(exc)}"
            if exc.status_code in RETRYABLE_STATUSES or exc.status_code >= 500:
                raise LlmUnavailable(detail) from exc
            raise LlmRejected(detail) from exc
        except openai.OpenAIError as exc:
            raise LlmUnavailable(f"the LLM call failed: {exc}") from exc

        usage = _usage_of(raw.http_response)
        # Counted before the answer is checked: an unusable answer is paid for all the same.
        metrics.record_llm_usage(
            model, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, cost_usd=ai_cost_usd(usage)
        )
        if self.output_mode == "json_object":
            return _validated(raw, answer_type, usage), usage
        try:
            completion = raw.parse()
        except openai.LengthFinishReasonError as exc:
            raise LlmBadResponse("the answer was cut off at the token limit", usage=usage) from exc
        except openai.ContentFilterFinishReasonError as exc:
            raise LlmBadResponse("the answer was stopped by the content filter", usage=usage) from exc
        except (pydantic.ValidationError, ValueError, TypeError, openai.OpenAIError) as exc:
            raise LlmBadResponse(f"the answer does not fit {answer_type.__name__}: {exc}", usage=usage) from exc

        if not completion.choices:
            raise LlmBadResponse("the answer has no choices", usage=usage)
        message = completion.choices[0].message
        if message.refusal:
            raise LlmBadResponse(f"the model refused: {message.refusal}", usage=usage)
        if message.parsed is None:
            raise LlmBadResponse("the answer has no content", usage=usage)
        logger.debug(
            "%s answered %s (%d+%d tokens)", model, answer_type.__name__, usage.input_tokens, usage.output_tokens
        )
        return message.parsed, usage


def _json_mode_instruction(answer_type: type[BaseModel]) -> str:
    """What JSON mode needs said in the prompt (it enforces JSON, not a shape): the answer's JSON schema."""
    schema = json.dumps(answer_type.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return f"Answer with one JSON object, nothing else, that fits this JSON schema: {schema}"


def _validated(raw, answer_type: type[Answer], usage: TokenUsage) -> Answer:
    """A JSON-mode completion's answer, checked against `answer_type`; LlmBadResponse says what is wrong."""
    try:
        completion = raw.parse()
    except (ValueError, TypeError, openai.OpenAIError) as exc:
        raise LlmBadResponse(f"the completion is not readable: {exc}", usage=usage) from exc
    if not completion.choices:
        raise LlmBadResponse("the answer has no choices", usage=usage)
    choice = completion.choices[0]
    if choice.finish_reason == "length":
        raise LlmBadResponse("the answer was cut off at the token limit", usage=usage)
    if choice.finish_reason == "content_filter":
        raise LlmBadResponse("the answer was stopped by the content filter", usage=usage)
    if choice.message.refusal:
        raise LlmBadResponse(f"the model refused: {choice.message.refusal}", usage=usage)
    if not choice.message.content:
        raise LlmBadResponse("the answer has no content", usage=usage)
    try:
        return answer_type.model_validate_json(choice.message.content, strict=True)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the answer"
        raise LlmBadResponse(
            f"the answer does not fit {answer_type.__name__}: {where}: {first['msg']} ({exc.error_count()} errors)",
            usage=usage,
        ) from exc


def _product_json(product: ProductQuery) -> dict:
    described = {"name": product.product_name}
    if product.brand:
        described["brand"] = product.brand
    if product.model_code:
        described["model_code"] = product.model_code
    if product.price:
        # The shop's own price tells a 5,000원 case from a 1,500,000원 phone.
        described["shop_price_won"] = product.price
    return described


def _usage_of(http_response) -> TokenUsage:
    """The completion's token usage, read from the raw body so that even an unusable answer is counted."""
    try:
        usage = http_response.json().get("usage") or {}
        return TokenUsage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
    except (ValueError, TypeError, AttributeError):
        return TokenUsage()


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return exc.message


def _one_line(query: str) -> str:
    return " ".join(query.split())[:QUERY_MAX_CHARS].strip()
