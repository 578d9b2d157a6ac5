"""Realistic rows for the admin tests, made the way production makes them: jobs through jobs.queue, the rest
through the ORM (as the crawler and the pipeline write them)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from django.utils import timezone

from jobs import queue
from jobs.models import Job
from lps_site.job_types import JobType
from negative_cache import cache
from search.models import BotEvent, IpSession, PriceSnapshot, Product, SessionEndReason

WORKER = "test-host:4242:admin"


def found_result(name: str, *, price: int = 12_900, ai_usd: float = 0.0021, proxy_usd: float = 0.0105) -> dict:
    """A SEARCH result that needed a precise second round to find the product (SPEC §8 shape)."""
    listing = {
        "title": f"{name} 정품 무료배송",
        "price": price,
        "url": "https://www.coupang.com/vp/products/7340012?itemId=1",
        "product_id": "7340012",
        "seller": "쿠팡",
        "rocket": True,
    }
    return {
        "outcome": "found",
        "lowest": listing,
        "matches": [
            listing,
            {
                **listing,
                "price": price + 1_100,
                "url": "https://www.coupang.com/vp/products/7340013",
                "rocket": False,
                "seller": "베스트몰",
                "product_id": "7340013",
            },
        ],
        "rounds": [
            {
                "query": name,
                "kind": "original",
                "candidates": 2,
                "matches": 0,
                "verdicts": [
                    {
                        "index": 0,
                        "same_product": False,
                        "confidence": 0.91,
                        "reason": "케이스 액세서리, 본품 아님",
                        "title": f"{name} 전용 케이스",
                        "price": 4_900,
                    },
                    {
                        "index": 1,
                        "same_product": False,
                        "confidence": 0.77,
                        "reason": "different capacity (64GB)",
                        "title": f"{name} 64GB",
                        "price": 9_900,
                    },
                ],
            },
            {
                "query": f"{name} 정품",
                "kind": "precise",
                "candidates": 3,
                "matches": 2,
                "verdicts": [
                    {
                        "index": 0,
                        "same_product": True,
                        "confidence": 0.96,
                        "reason": "model code and brand match",
                        "title": listing["title"],
                        "price": price,
                    },
                    {
                        "index": 1,
                        "same_product": True,
                        "confidence": 0.88,
                        "reason": "same model, other seller",
                        "title": f"{name} 정품",
                        "price": price + 1_100,
                    },
                    {
                        "index": 2,
                        "same_product": False,
                        "confidence": 0.83,
                        "reason": "refurbished unit",
                        "title": f"{name} 리퍼",
                        "price": price - 3_000,
                    },
                ],
            },
        ],
        "cached": False,
        "metrics": {
            "duration_ms": 8_412,
            "rounds": 2,
            "tokens": 2_310,
            "bytes": 1_048_576,
            "cost": {"ai_usd": ai_usd, "proxy_usd": proxy_usd, "total_usd": round(ai_usd + proxy_usd, 6)},
            "stages_ms": {"browser_page": 0.2, "navigation": 1_204.5, "parse": 11.0, "judge": 7_010.3, "database": 9.1},
        },
    }


def not_found_result(name: str, *, cached: bool = False) -> dict:
    rounds = (
        []
        if cached
        else [
            {"query": name, "kind": "original", "candidates": 0, "matches": 0, "verdicts": []},
            {"query": f"{name} 정품", "kind": "precise", "candidates": 0, "matches": 0, "verdicts": []},
            {
                "query": name.split()[0],
                "kind": "broad",
                "candidates": 1,
                "matches": 0,
                "verdicts": [{"index": 0, "same_product": False, "confidence": 0.7, "reason": "other brand"}],
            },
        ]
    )
    cost = (
        {"ai_usd": 0.0, "proxy_usd": 0.0, "total_usd": 0.0}
        if cached
        else {"ai_usd": 0.001, "proxy_usd": 0.02, "total_usd": 0.021}
    )
    return {
        "outcome": "not_found",
        "matches": [],
        "rounds": rounds,
        "cached": cached,
        "metrics": {
            "duration_ms": 3 if cached else 12_050,
            "rounds": len(rounds),
            "tokens": 0,
            "bytes": 0,
            "cost": cost,
        },
    }


def _payload(code: str, name: str) -> dict:
    return {"product_code": code, "product_name": name, "brand": "삼성", "price": 15_000}


def _claim_only(job_id: uuid.UUID) -> queue.ClaimedJob:
    claimed = queue.claim(WORKER, limit=1, job_types=[JobType.SEARCH])
    assert [c.job_id for c in claimed] == [job_id], "another pending job was claimed first: build finished jobs first"
    return claimed[0]


def pending(code: str, name: str, *, dedupe: bool = True) -> uuid.UUID:
    return queue.enqueue(
        queue.NewJob(JobType.SEARCH, _payload(code, name), dedupe_key=f"search:{code}" if dedupe else None)
    ).job_id


def running(code: str, name: str) -> uuid.UUID:
    job_id = pending(code, name)
    _claim_only(job_id)
    return job_id


def done(code: str, name: str, result: dict) -> uuid.UUID:
    job_id = pending(code, name)
    assert isinstance(queue.complete(_claim_only(job_id), result), queue.Moved)
    return job_id


def dead(
    code: str, name: str, error: str = "CrawlBlocked: HTTP 403 from www.coupang.com (challenge page)"
) -> uuid.UUID:
    job_id = pending(code, name)
    moved = queue.fail(_claim_only(job_id), error, retryable=False)
    assert moved.status == 4
    return job_id


def backdate(job_id: uuid.UUID, *, created: timedelta, updated: timedelta | None = None) -> None:
    """Make a job look older (its timestamps are set by the database at now())."""
    now = timezone.now()
    Job.objects.filter(job_id=job_id).update(
        created_at=now - created, updated_at=now - (updated if updated is not None else created)
    )


def product_with_history(code: str, name: str, prices: list[int | None], *, start: datetime | None = None) -> Product:
    """A product searched once a day, with one price snapshot per search (None: not found)."""
    start = start or timezone.now() - timedelta(days=len(prices))
    product = Product.objects.create(product_code=code, product_name=name, brand="삼성", search_count=len(prices))
    for day, price in enumerate(prices):
        PriceSnapshot.objects.create(
            product=product,
            job_id=uuid.uuid4(),
            outcome="found" if price is not None else "not_found",
            price=price,
            title=f"{name} 정품" if price is not None else "",
            url="https://www.coupang.com/vp/products/7340012" if price is not None else "",
            seller="쿠팡" if price is not None else "",
            rocket=price is not None,
            cost_usd=Decimal("0.012600"),
            captured_at=start + timedelta(days=day),
        )
    last = prices[-1] if prices else None
    Product.objects.filter(pk=product.pk).update(
        last_outcome="found" if last is not None else "not_found",
        last_price=last,
        last_url="https://www.coupang.com/vp/products/7340012" if last is not None else "",
        last_searched_at=start + timedelta(days=len(prices) - 1),
    )
    product.refresh_from_db()
    return product


def sessions(requests_by_reason: dict[SessionEndReason, list[int]], *, proxy: str = "kr-proxy-1") -> list[IpSession]:
    """Ended IP sessions: for each end reason, one session per request count."""
    now = timezone.now()
    made = []
    for reason, counts in requests_by_reason.items():
        for requests in counts:
            made.append(
                IpSession.objects.create(
                    proxy_label=proxy,
                    worker_id=WORKER,
                    started_at=now - timedelta(minutes=30),
                    ended_at=now - timedelta(minutes=5),
                    requests=requests,
                    bytes=requests * 350_000,
                    end_reason=reason,
                )
            )
    return made


def bot_event(
    snapshot_dir: Path, *, query: str, session: IpSession | None = None, name: str = "block.html"
) -> BotEvent:
    """A block with its failure snapshot saved under the snapshot folder, as the crawler records one."""
    day_dir = snapshot_dir / "2026-11-30"
    day_dir.mkdir(parents=True, exist_ok=True)
    (day_dir / name).write_text("<html><body><h1>Access Denied</h1><script>alert(1)</script></body></html>")
    return BotEvent.objects.create(
        ip_session=session,
        proxy_label=session.proxy_label if session else "direct",
        kind="http_403",
        http_status=403,
        url="https://www.coupang.com/np/search?q=x",
        query=query,
        requests_in_session=session.requests if session else 1,
        snapshot_path=str(day_dir / name),
    )


def negative(name: str, *, ttl: timedelta = timedelta(hours=24), model_code: str = "", brand: str = "") -> str:
    """A not_found remembered for the product `name` (with `model_code` and `brand`); returns its key."""
    key = cache.key_for(product_name=name, model_code=model_code, brand=brand)
    cache.remember(key, ttl=ttl, reason="3 rounds, no match")
    return key.key
