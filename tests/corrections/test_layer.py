"""Corrections sit above search: search learns of them only through its overrides registry, never by import."""

from tests.jobs.test_layers import forbidden_imports


def test_search_and_negative_cache_never_import_corrections():
    assert forbidden_imports("search", {"corrections"}) == []
    assert forbidden_imports("negative_cache", {"corrections"}) == []


def test_corrections_never_import_the_edges_above_them():
    assert forbidden_imports("corrections", {"api", "console"}) == []
