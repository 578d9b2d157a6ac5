"""Shared fixtures: the real PostgreSQL through pytest-django; fakes only at the network edge."""
