"""A job's judged page exported as a labelled corpus page round-trips: the corpus loader reads it, its labels are
the corrections where there are some and the job's verdicts elsewhere, and bench/judge_eval.py scores it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from api import keys
from corrections.correcting import correct
from corrections.models import Author
from jobs import queue
from lps_site.job_types import JobType
from tests.corrections.searches import NAME, finished_search
from tests.search.corpus import load_page

pytestmark = pytest.mark.django_db

JUDGE_EVAL = Path(__file__).resolve().parents[2] / "bench" / "judge_eval.py"


def judge_eval():
    spec = importlib.util.spec_from_file_location("judge_eval", JUDGE_EVAL)
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses look their module up by name while they are built.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_an_exported_page_loads_in_the_corpus_with_the_corrected_labels_and_judge_eval_scores_it(tmp_path, capsys):
    shop = keys.issue_key("shop")
    job_id = finished_search(shop.client.pk, price=250_000)
    for product_id, same in (("101", False), ("104", True)):
        correct(job_id, marketplace="coupang", product_id=product_id, same_product=same, made_by=Author.CLIENT,
                made_by_client_id=shop.client.pk, visible_to=shop.client.pk)  # fmt: skip

    call_command("exportcorpuspage", str(job_id), "--dir", str(tmp_path))

    path = tmp_path / "from_jobs" / f"job-{job_id}.json"
    assert capsys.readouterr().out.strip() == str(path)
    page = load_page(path)
    labels = {listing.price: listing.same for listing in page.listings}
    # 101 rejected and 104 confirmed by corrections; 102 and 103 as the job's judge said; the ad was never judged.
    assert labels == {99_000: False, 219_000: True, 9_900: False, 189_000: True}
    assert (page.product.product_name, page.product.price) == (NAME, 250_000)
    assert (page.expected_outcome, page.expected_price) == ("found", 189_000)
    assert "2 of 4 listing(s) labelled by corrections" in json.loads(path.read_text())["note"]
    bench = judge_eval()
    run = bench.run_page(page, bench.rules_judge)
    assert run.page is page


def test_the_page_can_be_printed_and_only_a_finished_search_can_be_exported(capsys):
    job_id = finished_search(None)
    pending = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "P", "product_name": NAME})).job_id

    call_command("exportcorpuspage", str(job_id), "--print")

    assert json.loads(capsys.readouterr().out)["expected"] == {"outcome": "found", "price": 99_000}
    with pytest.raises(CommandError, match="not a finished search"):
        call_command("exportcorpuspage", str(pending), "--print")
    with pytest.raises(CommandError, match="no job"):
        call_command("exportcorpuspage", "00000000-0000-0000-0000-000000000000", "--print")
