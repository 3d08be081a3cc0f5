"""The site's own versions of django-csp's and Django's messages middleware: the same headers and
messages as the originals, built once a process or only when used; and the OTLP endpoint, which
skips their work, still refuses a missing or revoked token and still carries the headers."""

import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CSPMiddleware
from csp.utils import build_policy
from django.contrib import messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import timezone
from django.utils.functional import empty
from rest_framework.test import APIClient

from accounts.models import ApiToken
from evalsite.middleware import LazyMessageMiddleware, SettingsPolicyCSPMiddleware

pytestmark = pytest.mark.django_db


def _otlp_post(client):
    return client.post("/v1/traces", b"", content_type="application/x-protobuf")


def test_a_page_and_an_otlp_answer_carry_the_policy_built_from_settings(
    client, api_client_for, annotator
):
    # given
    expected = build_policy()
    # when
    page = client.get("/login/")
    otlp = _otlp_post(api_client_for(annotator))
    # then
    assert page.status_code == otlp.status_code == 200
    for response in (page, otlp):
        assert response[HEADER] == expected
        assert "script-src 'self'" in response[HEADER]
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"


def test_a_changed_policy_setting_is_the_next_responses_policy(client, settings):
    client.get("/login/")
    directives = {**settings.CONTENT_SECURITY_POLICY["DIRECTIVES"], "img-src": ["'none'"]}
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": directives}
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": {"default-src": ["'self'"]}}

    page = client.get("/login/")

    assert "img-src 'none'" in page[HEADER]
    assert page[HEADER_REPORT_ONLY] == "default-src 'self'"


def _csp_response(request, response):
    middleware = SettingsPolicyCSPMiddleware(lambda request: response)
    return middleware(request)


def _view_using_nonce(request):
    str(request.csp_nonce)
    return HttpResponse()


def _view_updating_policy(request):
    response = HttpResponse()
    response._csp_update = {"img-src": ["https://images.example"]}
    return response


def _view_exempt(request):
    response = HttpResponse()
    response._csp_exempt = True
    return response


@pytest.mark.parametrize(
    "view",
    [lambda request: HttpResponse(), _view_using_nonce, _view_updating_policy, _view_exempt],
)
def test_every_response_gets_the_headers_django_csp_gives_it(view, settings):
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": {"default-src": ["'self'"]}}
    answers = []
    for middleware in (SettingsPolicyCSPMiddleware, CSPMiddleware):
        request = RequestFactory().get("/traces/")
        request._csp_nonce = "fixed-nonce" if view is _view_using_nonce else None
        answers.append(middleware(view)(request))

    ours, theirs = answers
    assert ours.get(HEADER) == theirs.get(HEADER)
    assert ours.get(HEADER_REPORT_ONLY) == theirs.get(HEADER_REPORT_ONLY)
    assert (HEADER in ours) is (view is not _view_exempt)
    if view is _view_updating_policy:
        assert "https://images.example" in ours[HEADER]


def test_a_nonce_asked_for_after_the_header_is_written_is_refused():
    request = RequestFactory().get("/")
    _csp_response(request, HttpResponse())

    with pytest.raises(Exception, match="not available after the CSP header"):
        str(request.csp_nonce)


def _with_session(request):
    SessionMiddleware(lambda request: HttpResponse()).process_request(request)
    return request


def test_messages_added_by_a_view_are_stored_for_the_next_page():
    def view(request):
        messages.success(request, "Saved.")
        return HttpResponse()

    request = _with_session(RequestFactory().get("/"))
    response = LazyMessageMiddleware(view)(request)

    assert isinstance(request._messages._wrapped, FallbackStorage)
    next_page = _with_session(RequestFactory().get("/"))
    next_page.COOKIES["messages"] = response.cookies["messages"].value
    assert [str(message) for message in FallbackStorage(next_page)] == ["Saved."]


def test_a_request_that_never_uses_messages_builds_no_storage():
    request = _with_session(RequestFactory().get("/api/me/"))
    response = LazyMessageMiddleware(lambda request: HttpResponse())(request)

    assert request._messages._wrapped is empty
    assert "messages" not in response.cookies


def test_the_otlp_endpoint_refuses_a_missing_or_revoked_token(api_client_for, annotator):
    token, raw = ApiToken.generate(annotator, "exporter")
    exporter = APIClient()
    exporter.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert _otlp_post(exporter).status_code == 200

    token.revoked_at = timezone.now()
    token.save()

    assert _otlp_post(exporter).status_code == 401
    assert _otlp_post(APIClient()).status_code in (401, 403)
