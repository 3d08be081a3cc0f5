"""The client's address: REMOTE_ADDR, or behind trusted proxies the forwarded one."""

from django.test import RequestFactory

from accounts.client_address import client_address


def _request(remote, forwarded=None):
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **headers)


def test_without_trusted_proxies_the_forwarded_header_is_ignored(settings):
    settings.TRUSTED_PROXIES = []
    assert client_address(_request("192.0.2.1", "198.51.100.1")) == "192.0.2.1"


def test_from_a_trusted_proxy_the_rightmost_untrusted_address_is_the_client(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "192.0.2.1"]
    request = _request("192.0.2.1", "6.6.6.6, 198.51.100.1, 10.1.1.1")
    # 6.6.6.6 is whatever the client wrote itself: only the proxies' own entries are trusted.
    assert client_address(request) == "198.51.100.1"


def test_a_request_not_from_a_trusted_proxy_keeps_its_own_address(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert client_address(_request("192.0.2.9", "198.51.100.1")) == "192.0.2.9"


def test_garbage_in_the_forwarded_header_falls_back_to_the_proxy(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    assert client_address(_request("10.0.0.1", "not-an-ip, ")) == "10.0.0.1"
    assert client_address(_request("10.0.0.1", "")) == "10.0.0.1"
    assert client_address(_request("10.0.0.1", "2001:db8::1")) == "2001:db8::1"
