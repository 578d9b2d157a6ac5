"""Shared fixtures: the real PostgreSQL through pytest-django; fakes only at the network edge.

The fakes are real servers on 127.0.0.1, each defined (with its fixtures) in its own module below.
"""

pytest_plugins = [
    "tests.fakes.marketplace",
    "tests.fakes.openai_server",
    "tests.fakes.webhook_receiver",
]
