"""Finished SEARCH jobs for the corrections tests, made as production makes them: the pipeline's own result (with a
plain judge passed in, as the pipeline allows), enqueued, claimed and completed through jobs.queue."""

from __future__ import annotations

import uuid

from jobs import queue
from lps_site.job_types import JobType
from search import pipeline
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, SearchPage, Verdict
from search.payload import SearchPayload

NAME = "삼성전자 갤럭시 버즈3 프로 SM-R630"
WORKER = "test-host:1:corrections"


def shelf_listing(product_id: str, price: int, title: str, **extra) -> Listing:
    return Listing(title=title, price=price, url=f"https://www.coupang.com/vp/products/{product_id}",
                   product_id=product_id, **extra)  # fmt: skip


# Titles starting "OK" are the product to this judge, "MAYBE" leaves it uncertain, anything else is not.
PAGE = [
    shelf_listing("101", 99_000, "OK 갤럭시 버즈3 프로 SM-R630 (trap)"),
    shelf_listing("102", 219_000, "OK 삼성전자 갤럭시 버즈3 프로 SM-R630 실버", seller="삼성전자"),
    shelf_listing("103", 9_900, "버즈3 프로 케이스"),
    shelf_listing("104", 189_000, "MAYBE 갤럭시 버즈3 프로 이어폰"),
    shelf_listing("105", 50_000, "OK 광고 버즈3 프로", ad=True),
]


def plain_judge(product, candidates) -> Judgement:
    verdicts = []
    for index, candidate in enumerate(candidates):
        if candidate.title.startswith("MAYBE"):
            verdicts.append(Verdict(index, False, 0.5, "uncertain: words missing", uncertain=True))
        else:
            verdicts.append(Verdict(index, candidate.title.startswith("OK"), 0.95, "plain judge"))
    return Judgement(verdicts=verdicts, settled_by_rules=len(candidates))


def search_result(listings=PAGE, *, client_id: int | None = None, name: str = NAME) -> dict:
    page = SearchPage(query=name, url="https://www.coupang.com/np/search", listings=list(listings), empty=False)
    return pipeline.search_product(
        ProductQuery("SKU-1", name),
        fetch=lambda query: page if query == name else SearchPage(query, "", [], empty=True),
        judge=plain_judge,
        refine=lambda product, tried: RefinedQueries(precise="", broad=""),
        max_rounds=1,
        ai_cost=lambda usage: 0.0,
        client_id=client_id,
    )


def finished_search(
    owner_id: int | None, *, code: str = "SKU-1", name: str = NAME, result: dict | None = None, **fields
) -> uuid.UUID:
    """A DONE SEARCH job of `owner_id` with `result` (the page above, judged, by default)."""
    payload = SearchPayload.from_payload({"product_code": code, "product_name": name, "client_id": owner_id, **fields})
    job_id = queue.enqueue(
        queue.NewJob(JobType.SEARCH, payload.as_payload(), dedupe_key=f"search:{owner_id}:{code}", owner_id=owner_id)
    ).job_id
    (claimed,) = queue.claim(WORKER, limit=1, job_types=[JobType.SEARCH])
    assert claimed.job_id == job_id
    done = result if result is not None else search_result(client_id=owner_id, name=name)
    assert isinstance(queue.complete(claimed, done), queue.Moved)
    return job_id
