"""Reading LPS_PROXIES entries (search/proxies.py): labels without credentials, http by default, "direct"."""

from __future__ import annotations

import pytest

from search.proxies import DIRECT, Proxy


def test_a_proxy_is_labelled_by_host_and_port_and_keeps_its_credentials_out_of_the_label():
    proxy = Proxy.parse("http://user:p%40ss@10.0.0.1:8080")

    assert proxy.label == "10.0.0.1:8080"
    assert proxy.playwright_settings() == {"server": "http://10.0.0.1:8080", "username": "user", "password": "p@ss"}


@pytest.mark.parametrize(
    ("spec", "label", "server"),
    [
        ("10.0.0.2:3128", "10.0.0.2:3128", "http://10.0.0.2:3128"),
        ("socks5://[::1]:1080", "[::1]:1080", "socks5://[::1]:1080"),
        (" https://proxy.example:443 ", "proxy.example:443", "https://proxy.example:443"),
    ],
)
def test_proxy_entries_are_read_with_http_as_the_default_scheme(spec, label, server):
    proxy = Proxy.parse(spec)

    assert (proxy.label, proxy.server) == (label, server)


@pytest.mark.parametrize("spec", ["direct", "", "none"])
def test_direct_means_no_proxy(spec):
    assert Proxy.parse(spec) == DIRECT
    assert DIRECT.playwright_settings() is None


@pytest.mark.parametrize("spec", ["ftp://10.0.0.1:21", "http://:8080", "http://user:secret@host:port"])
def test_a_bad_proxy_entry_is_refused_without_showing_its_password(spec):
    with pytest.raises(ValueError, match="not a proxy URL") as caught:
        Proxy.parse(spec)

    assert "secret" not in str(caught.value)
