"""`manage.py search "<product name>"`: run the search pipeline in-process for one product, print its JSON."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from search import trust
from search.crawler import Crawler
from search.exceptions import SearchError
from search.handler import run_pipeline
from search.listings import ProductQuery
from search.llm import LlmClient
from search.products import record_search


class Command(BaseCommand):
    help = "Search one product on the marketplace (no queue) and print the result JSON on stdout."

    def add_arguments(self, parser):
        parser.add_argument("product_name")
        parser.add_argument("--product-code", default="", help="the client's code; its price snapshot is stored")
        parser.add_argument("--model-code", default=None)
        parser.add_argument("--brand", default=None)

    def handle(self, *args, product_name, product_code, model_code, brand, **options):
        if not product_name.strip():
            raise CommandError("the product name must not be blank")
        product = ProductQuery(
            product_code=product_code.strip(),
            product_name=product_name.strip(),
            brand=(brand or "").strip() or None,
            model_code=(model_code or "").strip() or None,
        )
        crawler = Crawler()
        llm = LlmClient.from_settings()
        try:
            result = run_pipeline(product, crawler=crawler, llm=llm)
        except SearchError as exc:
            raise CommandError(f"search failed ({type(exc).__name__}, nothing cached): {exc}") from exc
        finally:
            if llm is not None:
                llm.close()
            crawler.close(reason="shutdown")
        trust.describe(result, product)
        if product.product_code:
            record_search(product, result)
        self.stdout.write(json.dumps(result, ensure_ascii=False))
