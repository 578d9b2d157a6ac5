"""The callback-URL check of SPEC §8: what is refused always, what only without LPS_ALLOW_PRIVATE_CALLBACKS."""

from __future__ import annotations

import re

import pytest

from api.callbacks import CachingResolver, check_callback_url
from api.exceptions import CallbackUnresolvable, UnsafeCallbackUrl


def resolving_to(*addresses: str):
    """A resolver (passed in as an argument) that answers `addresses` for any host and counts its calls."""

    def resolver(host: str, port: int) -> list[str]:
        resolver.calls.append((host, port))
        return list(addresses)

    resolver.calls = []
    return resolver


def refusing_dns(host: str, port: int) -> list[str]:
    raise CallbackUnresolvable(f"{host!r} does not resolve")


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://169.254.1.1:8080/hook",
        "http://[fe80::1]/hook",
        "http://[::ffff:169.254.169.254]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://0.0.0.0:8000/",
        "http://[::]/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
        "http://[::ffff:255.255.255.255]/",
        "http://240.0.0.1/",
        "http://0.0.0.0/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://METADATA.GOOGLE.INTERNAL./",
        "http://metadata/",
    ],
)
def test_link_local_and_metadata_targets_are_refused_even_when_private_ones_are_allowed(url):
    with pytest.raises(UnsafeCallbackUrl):
        check_callback_url(url, allow_private=True, resolver=resolving_to("93.184.216.34"))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9000/hook",
        "http://localhost/hook",
        "http://api.localhost/hook",
        "http://[::1]/hook",
        "http://10.1.2.3/hook",
        "http://172.16.0.9/hook",
        "http://192.168.1.10/hook",
        "http://100.64.0.1/hook",
        "http://[fc00::5]/hook",
    ],
)
def test_loopback_and_private_targets_need_lps_allow_private_callbacks(url):
    with pytest.raises(UnsafeCallbackUrl, match="LPS_ALLOW_PRIVATE_CALLBACKS"):
        check_callback_url(url, allow_private=False)
    assert check_callback_url(url, allow_private=True).addresses


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://93.184.216.34/x",
        "gopher://93.184.216.34/",
        "javascript:alert(1)",
        "http://",
        "http:///path",
        "https://user:secret@93.184.216.34/hook",
        "http://93.184.216.34:0/",
        "http://93.184.216.34:99999/",
        "http://93.184.216.34/a b",
        "http://93.184.216.34/\x00",
        "http://" + "a" * 2000 + ".com/",
    ],
)
def test_urls_that_are_not_plain_http_or_https_to_a_host_are_refused(url):
    with pytest.raises(UnsafeCallbackUrl):
        check_callback_url(url, allow_private=True, resolver=resolving_to("93.184.216.34"))


@pytest.mark.parametrize("address", ["255.255.255.255", "0.0.0.0", "::", "240.1.2.3"])
def test_a_host_resolving_to_a_broadcast_or_unspecified_address_is_refused_even_when_private_ones_are_allowed(address):
    with pytest.raises(UnsafeCallbackUrl, match="broadcast"):
        check_callback_url("http://hooks.example/", allow_private=True, resolver=resolving_to(address))


def test_a_host_is_refused_when_any_of_its_addresses_is_forbidden():
    resolver = resolving_to("93.184.216.34", "169.254.169.254")
    with pytest.raises(UnsafeCallbackUrl, match=re.escape("169.254.169.254")):
        check_callback_url("https://hooks.shop.example/lps", allow_private=True, resolver=resolver)


def test_a_host_resolving_to_a_private_address_is_refused_without_the_setting():
    with pytest.raises(UnsafeCallbackUrl, match=re.escape("10.0.0.7")):
        check_callback_url("https://intranet.example/", allow_private=False, resolver=resolving_to("10.0.0.7"))


def test_a_public_host_passes_with_the_addresses_delivery_will_connect_to():
    checked = check_callback_url(
        "https://hooks.shop.example:8443/lps/done?shop=7#frag",
        allow_private=False,
        resolver=resolving_to("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"),
    )
    assert (checked.scheme, checked.host, checked.port, checked.target) == (
        "https",
        "hooks.shop.example",
        8443,
        "/lps/done?shop=7",
    )
    assert checked.addresses == ("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946")


def test_a_host_that_does_not_resolve_is_refused_as_unresolvable():
    with pytest.raises(CallbackUnresolvable):
        check_callback_url("https://gone.example/", resolver=refusing_dns)


def test_the_invalid_top_level_domain_is_unresolvable_without_asking_dns():
    resolver = resolving_to("93.184.216.34")
    with pytest.raises(CallbackUnresolvable):
        check_callback_url("https://hooks.invalid/", resolver=resolver)
    assert resolver.calls == []


def test_the_caching_resolver_asks_once_per_host_and_port():
    resolver = resolving_to("93.184.216.34")
    caching = CachingResolver(resolver)
    for _ in range(5):
        check_callback_url("https://hooks.shop.example/a", resolver=caching)
    check_callback_url("https://hooks.shop.example:8443/a", resolver=caching)
    assert resolver.calls == [("hooks.shop.example", 443), ("hooks.shop.example", 8443)]
