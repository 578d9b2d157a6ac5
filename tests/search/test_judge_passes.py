"""The judge's second pass resumes where the first read the price (search.rules.judge_priced): on every listing
of the labelled corpus it says exactly what judging again from the first rule says, and it runs fewer rules."""

from __future__ import annotations

import ast
from pathlib import Path

from search import rules
from search.judge import reference_price
from search.rules import RULES, Context, Product, judge_context, judge_priced
from tests.search.corpus import load_pages

PAGES = load_pages()


def both_second_passes(page):
    """The verdicts of a page's candidates resumed and judged again from the first rule, and how many rules the
    resumed pass skipped."""
    wanted = Product.of(page.product)
    listings = [listing.as_listing(position) for position, listing in enumerate(page.candidates)]
    contexts = [Context(wanted, wanted.read(listing.title)) for listing in listings]
    first = [judge_context(context) for context in contexts]
    strong = [listing.price for listing, verdict in zip(listings, first, strict=True) if verdict.strong]
    reference = reference_price(page.product, strong)
    resumed = [
        judge_priced(context, verdict, listing.price, reference)
        for context, verdict, listing in zip(contexts, first, listings, strict=True)
    ]
    whole = [
        judge_context(Context(wanted, context.listing, price=listing.price, reference_price=reference))
        for context, listing in zip(contexts, listings, strict=True)
    ]
    skipped = sum(context.priced_from.position if context.priced_from else len(RULES) for context in contexts)
    return resumed, whole, skipped


def test_the_resumed_second_pass_gives_the_verdict_of_a_whole_one_on_every_corpus_listing():
    differing, skipped, listings = [], 0, 0
    for page in PAGES:
        resumed, whole, page_skipped = both_second_passes(page)
        skipped += page_skipped
        listings += len(whole)
        differing += [(page.name, a, b) for a, b in zip(resumed, whole, strict=True) if a != b]
    assert listings > 15_000
    assert differing == []
    # Most listings are judged again from the price rule near the end, not from the first rule.
    assert skipped / listings > len(RULES) / 2


def test_a_listing_no_rule_read_the_price_of_keeps_its_first_verdict():
    wanted = Product.of(PAGES[0].product)
    context = Context(wanted, wanted.read("중고 " + PAGES[0].product.product_name))
    first = judge_context(context)
    assert not first.same  # the condition rule rejects it ...
    assert context.priced_from is None  # ... before any rule reads the price
    assert judge_priced(context, first, 1, 1_000_000) is first


def test_no_rule_reads_a_price_but_through_page_prices():
    # judge_priced resumes where the first pass first read a price, which it knows only from page_prices(): a rule
    # reading context.price or context.reference_price directly would be resumed past, its price unseen.
    tree = ast.parse(Path(rules.__file__).read_text())
    page_prices = next(
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "page_prices"
    )
    allowed = {id(node) for node in ast.walk(page_prices)}
    direct = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in {"price", "reference_price"}
        and isinstance(node.value, ast.Name)
        and node.value.id in {"context", "self", "first"}
        and id(node) not in allowed
    ]
    assert direct == [], f"search/rules.py reads a price directly at lines {direct}"
