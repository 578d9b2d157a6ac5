"""A job's judged page as a labelled page of the judge's corpus (tests/search/judge_corpus/README.md), so that a
real miss a correction found feeds bench/judge_eval.py.

Every candidate a round judged is a listing (ads and sold-out listings were never judged, so never stored); its
`same` label is the product's correction where there is one, else the verdict the job gave it (an uncertain one
is not-same). The page's note says which is which: a person reviews the judge's labels before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from corrections.correcting import searched_product
from corrections.lookup import overrides_for
from jobs.models import Job
from search.result import SearchResult

DEFAULT_CATEGORY = "from_jobs"


def corpus_page(job: Job, *, category: str = DEFAULT_CATEGORY) -> dict:
    """The corpus page of a finished search (raises JobNotCorrectable for any other job)."""
    product = searched_product(job)
    corrected = overrides_for(product, job.owner_id)
    listings, seen, by_correction = [], set(), 0
    for verdict in SearchResult.from_json(job.result).verdicts:
        title, price = (verdict.title or "").strip(), verdict.price
        if not title or price is None or price <= 0:
            continue
        key = verdict.key or (title, price)
        if key in seen:
            continue
        seen.add(key)
        override = corrected.get(key)
        by_correction += override is not None
        shown = {"title": title, "price": price}
        if verdict.seller:
            shown["seller"] = verdict.seller
        if verdict.rocket:
            shown["rocket"] = True
        shown["same"] = override.same_product if override is not None else bool(verdict.same_product)
        listings.append(shown)
    genuine = [listing["price"] for listing in listings if listing["same"]]
    wanted = {"product_name": product.product_name}
    for name in ("brand", "model_code", "price"):
        if getattr(product, name):
            wanted[name] = getattr(product, name)
    return {
        "product": wanted,
        "markup": "current",
        "category": category,
        "traps": [],
        "note": (
            f"job {job.job_id} ({product.product_code}): {by_correction} of {len(listings)} listing(s) labelled by "
            "corrections, the others by the judge's verdicts: review those and add trap classes before committing"
        ),
        "listings": listings,
        "expected": {"outcome": "found", "price": min(genuine)} if genuine else {"outcome": "not_found"},
    }


def file_name(job: Job) -> str:
    return f"job-{job.job_id}.json"


def dumps(page: dict) -> str:
    return json.dumps(page, ensure_ascii=False, indent=2) + "\n"


def write(job: Job, *, root: Path | None = None, category: str = DEFAULT_CATEGORY) -> Path:
    """Write the job's page as `<root>/<category>/job-<id>.json` (root: the corpus); return its path."""
    root = root or Path(settings.BASE_DIR) / "tests" / "search" / "judge_corpus"
    path = root / category / file_name(job)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(corpus_page(job, category=category)), encoding="utf-8")
    return path
