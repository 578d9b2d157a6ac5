"""How often the judge reports the right lowest price on the labelled corpus (tests/search/judge_corpus/).

    python bench/judge_eval.py                 # the rules judge (no database, no browser)
    python bench/judge_eval.py --errors        # also every listing the judge got wrong, with its reason
    python bench/judge_eval.py --llm           # the rules → LLM cascade against a local fake OpenAI endpoint
    python bench/judge_eval.py --set blind1    # only the pages of one folder (repeatable)
    python bench/judge_eval.py --llm --real-llm   # the cascade against the model the service is configured with
                                                  # (OPENAI_API_KEY, OPENAI_BASE_URL, LPS_JUDGE_MODEL): real verdicts
    python bench/judge_eval.py --record FILE   # the cascade against the fake, every prompt it sends written to FILE
                                               # (answers FILE already holds are kept and used; the others: "no")
    python bench/judge_eval.py --record FILE --label-answers   # ... each prompt answered from the corpus labels
                                               # (an always-right stand-in, named so in FILE; for the replay test)
    python bench/judge_eval.py --record FILE --real-llm        # ... answered by the configured model, kept in FILE
    python bench/judge_eval.py --replay FILE   # the cascade answered from FILE; lists the prompts FILE lacks

The cassette's format (JSON lines; an empty answer slot per prompt to hand to a reader) is described in
tests/fakes/cassette.py and docs/judge.md.

A page is right when the judge's lowest-priced match is exactly the lowest genuine candidate's price, or when
it matches nothing where nothing genuine is there. A wrong-price page reported a price that is not the lowest
genuine one: a trap-price page reported a listing that is not the product (the worst outcome: a shop would
price from it), a dearer-genuine page a genuine listing dearer than the lowest; a missed page reported nothing
where a genuine listing was there. A sure verdict is one the rules settle without asking the LLM: a wrong one
reaches the shop whatever the LLM would have said, so it must never happen. Listing precision/recall/F1 count
the candidates (ads and sold-out listings are never candidates). With `--llm`, the real LlmClient (real openai
client) talks to tests/fakes/openai_server.py on 127.0.0.1 and the output compares today's behaviour (every
candidate to the LLM) with the cascade (only the candidates the rules leave uncertain). The fake's verdicts
are word matching, not a model's: its accuracy numbers say nothing about a real model, its candidate and token
counts are real.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")

from search import review  # noqa: E402
from search.judge import judge_by_rules, judge_listings  # noqa: E402
from search.listings import Judgement, Listing, ProductQuery, TokenUsage, Verdict  # noqa: E402
from tests.search.corpus import CorpusPage, load_pages  # noqa: E402

if TYPE_CHECKING:
    from search.llm import LlmClient

JudgeFn = Callable[[ProductQuery, list[Listing]], Judgement]


def written_blind(folder: str) -> bool:
    """heldout/ and every blindN/: folders written without sight of the judge's rules, reported apart from the pages
    the rules were shaped on (tests/search/judge_corpus/README.md)."""
    return folder == "heldout" or folder.startswith("blind")


@dataclass
class PageRun:
    page: CorpusPage
    judgement: Judgement
    reported: int | None
    reported_title: str
    reported_same: bool | None
    """The label of the reported listing (None when nothing was reported)."""
    sure: tuple[bool, ...]
    """Per candidate, whether the rules were sure of their verdict."""
    seconds: float = 0.0
    """How long the judge took on the page."""

    @property
    def right(self) -> bool:
        return self.reported == self.page.expected_price

    @property
    def wrong_price(self) -> bool:
        return self.reported is not None and self.reported != self.page.expected_price

    @property
    def trap_price(self) -> bool:
        return self.reported is not None and self.reported_same is False

    @property
    def dearer_genuine(self) -> bool:
        return self.wrong_price and self.reported_same is True

    @property
    def missed(self) -> bool:
        return self.reported is None and self.page.expected_price is not None


def run_page(page: CorpusPage, judge: JudgeFn) -> PageRun:
    candidates = page.candidates
    listings = [listing.as_listing(position) for position, listing in enumerate(candidates)]
    started = time.perf_counter()
    judgement = judge(page.product, listings)
    elapsed = time.perf_counter() - started
    matched = [verdict.index for verdict in judgement.verdicts if verdict.same_product]
    lowest = min(matched, key=lambda index: listings[index].price) if matched else None
    sure = tuple(is_sure for _, is_sure in judge_by_rules(page.product, listings))
    return PageRun(
        page=page,
        judgement=judgement,
        reported=listings[lowest].price if lowest is not None else None,
        reported_title=listings[lowest].title if lowest is not None else "",
        reported_same=candidates[lowest].same if lowest is not None else None,
        sure=sure,
        seconds=elapsed,
    )


def report(runs: list[PageRun], *, label: str, errors: bool, brief: bool = False) -> None:
    pages = len(runs)
    right = sum(run.right for run in runs)
    wrong = [run for run in runs if run.wrong_price]
    missed = [run for run in runs if run.missed]
    trap_price = [run for run in runs if run.trap_price]
    dearer = [run for run in runs if run.dearer_genuine]
    tp = fp = fn = tn = uncertain = sure = sure_wrong = 0
    sure_wrong_listings = []
    by_trap: dict[str, Counter] = defaultdict(Counter)
    wrong_listings = []
    for run in runs:
        verdicts = {verdict.index: verdict for verdict in run.judgement.verdicts}
        for index, listing in enumerate(run.page.candidates):
            verdict = verdicts.get(index)
            said = bool(verdict and verdict.same_product)
            uncertain += bool(verdict and getattr(verdict, "uncertain", False))
            is_sure = run.sure[index] and getattr(verdict, "source", "rules") == "rules"
            sure += is_sure
            if is_sure and said != listing.same:
                sure_wrong += 1
                sure_wrong_listings.append((run.page.name, listing, verdict))
            tp += said and listing.same
            fp += said and not listing.same
            fn += not said and listing.same
            tn += not said and not listing.same
            trap = listing.trap or ("plain_same" if listing.same else "plain_other")
            by_trap[trap]["listings"] += 1
            by_trap[trap]["right" if said == listing.same else "wrong"] += 1
            if said != listing.same:
                wrong_listings.append((run.page.name, listing, verdict))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    listings = sum(len(run.page.listings) for run in runs)
    candidates = tp + fp + fn + tn

    print(f"== {label}: {pages} pages, {listings} listings ({candidates} candidates)")
    print(f"page accuracy      {right}/{pages} = {_pct(right, pages)}")
    print(f"wrong-price pages  {len(wrong)} = {_pct(len(wrong), pages)}")
    for kind, of_kind in (("trap-price pages", trap_price), ("dearer-genuine", dearer)):
        print(f"  {kind:<17}{len(of_kind)} = {_pct(len(of_kind), pages)}")
        for run in [] if brief else of_kind:
            expected = f"{run.page.expected_price:,}" if run.page.expected_price else "not_found"
            print(f"      {run.page.name}: reported {run.reported:,} ({run.reported_title}), expected {expected}")
    print(f"missed pages       {len(missed)} = {_pct(len(missed), pages)}")
    for run in [] if brief else missed:
        print(f"    {run.page.name}: reported not_found, expected {run.page.expected_price:,}")
    print(
        f"listings           precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}"
        f"  (tp {tp}, fp {fp}, fn {fn}, tn {tn}; uncertain {uncertain})"
    )
    print(f"sure verdicts      {sure}/{candidates} candidates = {_pct(sure, candidates)} settled by the rules alone")
    print(f"wrong sure         {sure_wrong}")
    for name, listing, verdict in [] if brief else sure_wrong_listings:
        print(f"    {name}: {listing.title!r} {listing.price:,} same={listing.same} → {verdict.reason}")
    if brief:
        return
    print("by trap class      listings  right  wrong")
    for trap in sorted(by_trap):
        counts = by_trap[trap]
        print(f"    {trap:<20} {counts['listings']:>6} {counts['right']:>6} {counts['wrong']:>6}")
    print("by set             pages  right  trap-price")
    by_set: dict[str, list[PageRun]] = defaultdict(list)
    for run in runs:
        folder = run.page.path.parent.name
        by_set[folder if written_blind(folder) else "(the rest)"].append(run)
    for folder, of_set in sorted(by_set.items()):
        right_of_set, traps_of_set = sum(r.right for r in of_set), sum(r.trap_price for r in of_set)
        print(f"    {folder:<20} {len(of_set):>3} {right_of_set:>6} {traps_of_set:>6}")
    print("by markup          pages  right")
    for markup in sorted({run.page.markup for run in runs}):
        of_markup = [run for run in runs if run.page.markup == markup]
        print(f"    {markup:<20} {len(of_markup):>3} {sum(run.right for run in of_markup):>6}")
    print("by marketplace     pages  right  trap-price")
    for marketplace in sorted({run.page.marketplace for run in runs}):
        of_market = [run for run in runs if run.page.marketplace == marketplace]
        right_of, traps_of = sum(r.right for r in of_market), sum(r.trap_price for r in of_market)
        print(f"    {marketplace:<20} {len(of_market):>3} {right_of:>6} {traps_of:>6}")
    if errors and wrong_listings:
        print("listings judged wrong (label → verdict: reason)")
        for name, listing, verdict in wrong_listings:
            reason = verdict.reason if verdict else "no verdict"
            print(f"    {name}: {listing.title!r} {listing.price:,} same={listing.same} → {reason}")


def review_figure(runs: list[PageRun], *, label: str) -> None:
    """Rules with `review` (search/review.py, the function the pipeline uses, at its default threshold and length):
    a silent-wrong page answers wrong and its right listing (a genuine one at the expected price; for a page with
    nothing genuine, the reported listing itself) is not among its review items, so nothing tells the shop."""
    by_set: dict[str, list[tuple[PageRun, int, bool, bool]]] = defaultdict(list)
    for run in runs:
        candidates = run.page.candidates
        judged = [
            {
                "index": verdict.index,
                "price": candidates[verdict.index].price,
                "title": candidates[verdict.index].title,
                "url": str(verdict.index),
                "same_product": verdict.same_product,
                "confidence": verdict.confidence,
                "reason": verdict.reason,
                "source": verdict.source,
                "uncertain": verdict.uncertain,
            }
            for verdict in run.judgement.verdicts
        ]
        listed = review.items(judged, run.reported)
        shown = {int(item["url"]) for item in listed}
        # Settled cheapest first, a person stops at the first genuine listing: confirming it re-answers the job at
        # its price, and every dearer item (the old answer among them) no longer can change the answer.
        genuine = [position for position, item in enumerate(listed) if candidates[int(item["url"])].same]
        looked = genuine[0] + 1 if genuine else len(listed)
        if run.page.expected_price is None:
            settling = {index for index, listing in enumerate(candidates) if listing.title == run.reported_title}
        else:
            settling = {i for i, c in enumerate(candidates) if c.same and c.price == run.page.expected_price}
        silent = not run.right and not shown & settling
        reported = {index for index, listing in enumerate(candidates) if listing.title == run.reported_title}
        unflagged_trap = run.trap_price and not shown & reported
        folder = run.page.path.parent.name
        by_set[folder if written_blind(folder) else "(the rest)"].append(
            (run, len(shown), silent, unflagged_trap, looked)
        )
    print()
    print(f"== {label} with review (review items at most {review.LIMIT} a page, model verdicts below")
    print(f"   {review.LOW_CONFIDENCE} confidence; silent wrong = a wrong answer whose right listing is not in review;")
    print("   unflagged = trap-price pages whose reported listing is not in review: a confident wrong price;")
    print("   settled = items a person settles a page, cheapest first, up to the first genuine one)")
    print("by set             pages  wrong  silent-wrong  review/page  trap-price  unflagged  settled/page")
    every = [entry for entries in by_set.values() for entry in entries]
    for folder, entries in [*sorted(by_set.items()), ("all", every)]:
        pages, silent = len(entries), sum(entry[2] for entry in entries)
        wrong = sum(not entry[0].right for entry in entries)
        traps = sum(entry[0].trap_price for entry in entries)
        unflagged = sum(entry[3] for entry in entries)
        mean = sum(entry[1] for entry in entries) / pages if pages else 0.0
        settled = sum(entry[4] for entry in entries) / pages if pages else 0.0
        print(
            f"    {folder:<20} {pages:>3} {wrong:>6} {silent:>6} = {_pct(silent, pages):>7} {mean:>8.2f} {traps:>8}"
            f" {unflagged:>10} {settled:>13.2f}"
        )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def rules_judge(product: ProductQuery, candidates: list[Listing]) -> Judgement:
    return judge_listings(product, candidates, llm=None)


def bounded_judge(page: CorpusPage, *, oracle: bool) -> JudgeFn:
    """The cascade with an LLM at either end of the scale, on one page: the rules' sure verdicts stand, and every
    candidate they are unsure of gets the page's label (`oracle`, an LLM that is never wrong) or "not the
    product" (an LLM that always says no). No model scores above the first or, being asked, below the second on
    the pages where it stays as careful: together they bracket what a real model can do behind these rules."""

    def judge(product: ProductQuery, candidates: list[Listing]) -> Judgement:
        ruled = judge_by_rules(product, candidates)
        verdicts = [
            verdict
            if sure
            else Verdict(verdict.index, oracle and page.candidates[verdict.index].same, 1.0, "bound", source="llm")
            for verdict, sure in ruled
        ]
        return Judgement(verdicts=verdicts, judge="bound", settled_by_rules=sum(sure for _, sure in ruled))

    return judge


def cascade_bounds(pages: list[CorpusPage]) -> None:
    """What the rules leave an LLM to win or lose: page accuracy with a never-wrong LLM and with a no-saying one."""
    print()
    print("== the cascade's bounds: the rules' sure verdicts, and for every other candidate an LLM that is")
    print("   always right (the ceiling the rules leave) or that always says no (the floor: nothing is believed)")
    for label, oracle in (("always-right LLM", True), ("always-no LLM", False)):
        runs = [run_page(page, bounded_judge(page, oracle=oracle)) for page in pages]
        right, traps = sum(run.right for run in runs), sum(run.trap_price for run in runs)
        dearer, missed = sum(run.dearer_genuine for run in runs), sum(run.missed for run in runs)
        print(
            f"{label:<19}page accuracy {right}/{len(runs)} = {_pct(right, len(runs))}, trap-price {traps},"
            f" dearer-genuine {dearer}, missed {missed}"
        )


def llm_comparison(pages: list[CorpusPage], *, errors: bool, real: bool = False) -> None:
    """Today's behaviour (every candidate to the LLM) against the cascade, on a local fake endpoint, or (`real`)
    on the model the service itself is configured with."""
    every, cascade = _with_the_configured_model(pages) if real else _with_the_fake(pages)
    # One call per page asked: every candidate of a page in one call before, only the unsure ones after.
    every_calls = sum(bool(run.page.candidates) for run in every)
    cascade_calls = sum(_sent(run.judgement) > 0 for run in cascade)
    print()
    if real:
        print("The verdicts below are the configured model's (LPS_JUDGE_MODEL): its accuracy is a real one.")
    else:
        print("NOTE: the fake endpoint judges by word matching, not as a model does: the accuracy below is NOT a")
        print("real model's. The candidate and token counts are real (the requests the real openai client sent).")
    report(every, label="every candidate to the LLM (before the cascade)", errors=False, brief=True)
    report(cascade, label="rules → LLM cascade (after)", errors=False, brief=True)

    candidates = sum(len(run.page.candidates) for run in cascade)
    sent = sum(_sent(run.judgement) for run in cascade)
    settled = candidates - sent
    tokens_before = sum(run.judgement.usage.total for run in every)
    tokens_after = sum(run.judgement.usage.total for run in cascade)
    pages_count = len(pages)
    print()
    print(f"LLM calls          before {every_calls}  after {cascade_calls} (of {pages_count} pages)")
    print(f"settled by rules   {settled}/{candidates} candidates = {_pct(settled, candidates)}")
    print(
        f"sent to the LLM    before {candidates / pages_count:.2f}  after {sent / pages_count:.2f} candidates per page"
    )
    print(
        f"tokens per search  before {tokens_before / pages_count:,.0f}  after {tokens_after / pages_count:,.0f}"
        f"  ({_pct(tokens_after, tokens_before)} of before; totals {tokens_before:,} → {tokens_after:,})"
    )
    print("per page           candidates  sent  tokens before → after")
    for before, after in zip(every, cascade, strict=True):
        print(
            f"    {after.page.name:<52} {len(after.page.candidates):>4} {_sent(after.judgement):>5}"
            f"  {before.judgement.usage.total:>6} → {after.judgement.usage.total:>6}"
        )


def _with_the_fake(pages: list[CorpusPage]) -> tuple[list[PageRun], list[PageRun]]:
    from search.llm import LlmClient
    from tests.fakes.openai_server import FakeOpenAI

    fake = FakeOpenAI().start()
    try:
        with LlmClient(api_key="judge-eval", base_url=fake.base_url + "/v1", max_retries=0) as llm:
            return _every_and_cascade(pages, llm)
    finally:
        fake.close()


def _with_the_configured_model(pages: list[CorpusPage]) -> tuple[list[PageRun], list[PageRun]]:
    """The real LlmClient as the service builds it (search.llm.LlmClient.from_settings)."""
    from search.llm import LlmClient

    llm = LlmClient.from_settings()
    if llm is None:
        raise SystemExit("--real-llm needs OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)")
    with llm:
        return _every_and_cascade(pages, llm)


def _every_and_cascade(pages: list[CorpusPage], llm: LlmClient) -> tuple[list[PageRun], list[PageRun]]:
    """Each page judged by the LLM alone (every candidate sent), then by the rules → LLM cascade."""
    every = [run_page(page, lambda product, candidates: llm.judge(product, candidates)) for page in pages]
    cascade = [
        run_page(page, lambda product, candidates: judge_listings(product, candidates, llm=llm)) for page in pages
    ]
    return every, cascade


def _sent(judgement: Judgement) -> int:
    return sum(1 for verdict in judgement.verdicts if getattr(verdict, "source", "llm") == "llm")


LABEL_ANSWERS = (
    "always-right: each candidate answered with the corpus label (tests/search/judge_corpus/), NOT a model's or a"
    " reader's answers; replaying them measures the rules' sure verdicts and the plumbing, not a model"
)


def cassette_run(pages: list[CorpusPage], path: Path, *, record: bool, label_answers: bool, real: bool) -> bool:
    """The cascade against the fake endpoint answering from the cassette at `path` (recording the prompts it lacks,
    or with `real` forwarding them to the configured model), then its report; True when no prompt went unanswered."""
    from django.conf import settings

    from search.llm import LlmClient
    from tests.fakes.cassette import Cassette
    from tests.fakes.openai_server import FakeOpenAI

    cassette = Cassette.load(path) if path.exists() else Cassette()
    fake = FakeOpenAI().start()
    fake.cassette = cassette
    api_key = "judge-eval"
    if real:
        if not settings.OPENAI_API_KEY:
            raise SystemExit("--real-llm needs OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)")
        fake.upstream, api_key = settings.OPENAI_BASE_URL or "https://api.openai.com/v1", settings.OPENAI_API_KEY
        cassette.answers = f"{settings.LPS_JUDGE_MODEL} at {fake.upstream}"
    elif label_answers:
        cassette.answers = LABEL_ANSWERS
    runs = []
    try:
        with LlmClient(
            api_key=api_key,
            base_url=fake.base_url + "/v1",
            max_retries=0,
            timeout_seconds=120 if real else 30,
            judge_model=settings.LPS_JUDGE_MODEL,
        ) as llm:
            for page in pages:
                cassette.page = page.name
                if label_answers:
                    cassette.answerer = _labels_of(page)
                runs.append(run_page(page, lambda product, candidates: judge_listings(product, candidates, llm=llm)))
    finally:
        fake.close()
    if record:
        cassette.save(path)
    print()
    print(f"cassette {path}: {len(set(cassette.asked))} prompts asked, answers by: {cassette.answers or '(none yet)'}")
    report(runs, label=f"rules → LLM cascade, answers from {path.name}", errors=False)
    tokens = sum(run.judgement.usage.total for run in runs)
    calls = len(cassette.asked)
    checks = sum(len(cassette.entries[key].candidates) == 1 for key in cassette.asked)
    usage = sum((run.judgement.usage for run in runs), TokenUsage())
    dollars = usage.cost_usd(
        input_usd_per_1m=settings.LPS_AI_INPUT_USD_PER_1M_TOKENS,
        output_usd_per_1m=settings.LPS_AI_OUTPUT_USD_PER_1M_TOKENS,
    )
    print(
        f"LLM calls          {calls} ({calls / len(pages):.2f} per search),"
        f" tokens per search {tokens / len(pages):,.0f}"
    )
    print(f"of them alone      {checks} questions of one candidate (the verification of the lowest among them)")
    print(
        f"cost               {usage.input_tokens / len(pages):,.0f} in + {usage.output_tokens / len(pages):,.0f} out"
        f" tokens per search = ${1000 * dollars / len(pages):.3f} per 1,000 searches at"
        f" ${settings.LPS_AI_INPUT_USD_PER_1M_TOKENS}/${settings.LPS_AI_OUTPUT_USD_PER_1M_TOKENS} per 1M tokens"
        f" ({settings.LPS_JUDGE_MODEL}'s list price; the fake counts a token per 4 characters)"
    )
    review_figure(runs, label="the cascade")
    if cassette.missing:
        verb = "recorded with no answer (answered no)" if record else "not in the cassette (answered no)"
        print(f"prompts {verb}: {len(cassette.missing)}")
        for key in cassette.missing[: None if record else 50]:
            entry = cassette.entries[key]
            print(f"    {key} {entry.page}: {len(entry.candidates)} candidates")
    return not cassette.missing


def _labels_of(page: CorpusPage):
    """An answerer for the cassette: each candidate of a prompt gets the label of the page's candidate it names (by
    title and price)."""
    labels = {(listing.title, listing.price): listing.same for listing in page.candidates}

    def answer(entry) -> dict:
        verdicts = [
            {"index": candidate["index"], "same_product": labels[(candidate["title"], candidate["price_won"])]}
            | {"confidence": 1.0, "reason": "corpus label"}
            for candidate in entry.candidates
        ]
        return {"verdicts": verdicts}

    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", action="store_true", help="also run the rules → LLM cascade on a local fake endpoint")
    parser.add_argument(
        "--real-llm",
        action="store_true",
        help="with --llm: the model the service is configured with (OPENAI_API_KEY ...) instead of the local fake",
    )
    parser.add_argument("--record", type=Path, metavar="FILE", help="the cascade, its prompts written to a cassette")
    parser.add_argument("--replay", type=Path, metavar="FILE", help="the cascade answered from a cassette")
    parser.add_argument(
        "--label-answers", action="store_true", help="with --record: answer each prompt from the corpus labels"
    )
    parser.add_argument("--errors", action="store_true", help="list every listing the judge got wrong")
    parser.add_argument("--set", action="append", default=[], help="only the pages of this folder (repeatable)")
    args = parser.parse_args(argv)

    pages = [page for page in load_pages() if not args.set or page.path.parent.name in args.set]
    if not pages:
        print("the corpus has no pages yet (tests/search/judge_corpus/<category>/*.json)")
        return 1
    markups = Counter(page.markup for page in pages)
    traps = Counter(trap for page in pages for trap in page.traps)
    print(f"corpus: {len(pages)} pages ({', '.join(f'{m} {n}' for m, n in sorted(markups.items()))})")
    print("pages per trap class: " + ", ".join(f"{trap} {count}" for trap, count in sorted(traps.items())))
    if args.record or args.replay:
        # The cascade alone: the rules judge's own report is the plain run's.
        path = args.record or args.replay
        if args.replay and not path.exists():
            raise SystemExit(f"--replay {path}: no such file")
        complete = cassette_run(
            pages, path, record=bool(args.record), label_answers=args.label_answers, real=args.real_llm
        )
        return 0 if complete or args.record else 2
    runs = [run_page(page, rules_judge) for page in pages]
    report(runs, label="rules judge", errors=args.errors)
    elapsed = sorted(run.seconds for run in runs)
    candidates = sum(len(page.candidates) for page in pages)
    print(
        f"judge time         {1000 * sum(elapsed) / len(runs):.1f} ms per page on average, median"
        f" {1000 * elapsed[len(elapsed) // 2]:.1f} ms, slowest {1000 * elapsed[-1]:.1f} ms"
        f" ({1000 * sum(elapsed) / candidates:.2f} ms per candidate; judge_listings without an LLM)"
    )
    review_figure(runs, label="rules judge")
    cascade_bounds(pages)
    if args.llm:
        llm_comparison(pages, errors=args.errors, real=args.real_llm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
