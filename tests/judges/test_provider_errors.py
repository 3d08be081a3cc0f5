"""Each provider turns its SDK's errors into the project's own at its boundary: the same SDK
errors are retried (or not) as when callers caught the SDKs' classes themselves."""

import pickle
from types import SimpleNamespace

import anthropic
import httpx2
import openai
import pytest

from judges.providers import anthropic as anthropic_provider
from judges.providers import openai_chat
from judges.providers.errors import ProviderPermanentError, ProviderTransientError

REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def _status_error(sdk, status: int, headers: dict | None = None) -> Exception:
    """The error the SDK raises for a response of this status."""
    response = httpx2.Response(status, headers=headers or {}, request=REQUEST)
    by_status = {
        400: sdk.BadRequestError,
        401: sdk.AuthenticationError,
        404: sdk.NotFoundError,
        422: sdk.UnprocessableEntityError,
        429: sdk.RateLimitError,
        500: sdk.InternalServerError,
        503: sdk.InternalServerError,
    }
    error_class = by_status.get(response.status_code, sdk.APIStatusError)
    return error_class(f"Error code: {response.status_code}", response=response, body=None)


def _sdk_errors(sdk) -> list[tuple[Exception, type, str]]:
    """(SDK error, the project's class it becomes, the SDK's name kept in the message)."""
    return [
        (_status_error(sdk, 429), ProviderTransientError, "RateLimitError"),
        (_status_error(sdk, 500), ProviderTransientError, "InternalServerError"),
        (_status_error(sdk, 503), ProviderTransientError, "InternalServerError"),
        (sdk.APITimeoutError(request=REQUEST), ProviderTransientError, "APITimeoutError"),
        (sdk.APIConnectionError(request=REQUEST), ProviderTransientError, "APIConnectionError"),
        (_status_error(sdk, 400), ProviderPermanentError, "BadRequestError"),
        (_status_error(sdk, 401), ProviderPermanentError, "AuthenticationError"),
        (_status_error(sdk, 404), ProviderPermanentError, "NotFoundError"),
        (_status_error(sdk, 422), ProviderPermanentError, "UnprocessableEntityError"),
        (_status_error(sdk, 409), ProviderPermanentError, "APIStatusError"),
    ]


def _raising_client(error: Exception):
    def create(**params):
        raise error

    completions = SimpleNamespace(create=create)
    raw = SimpleNamespace(create=create)
    return SimpleNamespace(
        chat=SimpleNamespace(completions=completions),
        messages=SimpleNamespace(with_raw_response=raw),
    )


@pytest.mark.parametrize(("error", "expected", "kind"), _sdk_errors(openai))
def test_an_openai_sdk_error_is_sorted_as_before(monkeypatch, error, expected, kind):
    monkeypatch.setattr(openai_chat, "client", lambda base_url="": _raising_client(error))

    with pytest.raises((ProviderTransientError, ProviderPermanentError)) as raised:
        openai_chat.chat_create({"model": "gpt-4.1-mini", "messages": []})

    assert type(raised.value) is expected
    assert raised.value.kind == kind
    assert str(raised.value) == f"{kind}: {error}"
    assert raised.value.__cause__ is error


@pytest.mark.parametrize(("error", "expected", "kind"), _sdk_errors(anthropic))
def test_an_anthropic_sdk_error_is_sorted_as_before(monkeypatch, error, expected, kind):
    monkeypatch.setattr(anthropic_provider, "client", lambda: _raising_client(error))

    with pytest.raises((ProviderTransientError, ProviderPermanentError)) as raised:
        anthropic_provider.messages_create({"model": "claude", "max_tokens": 5, "messages": []})

    assert type(raised.value) is expected
    assert raised.value.kind == kind


@pytest.mark.parametrize("sdk", [openai, anthropic])
def test_the_providers_retry_after_travels_with_the_error(sdk):
    from judges.providers.common import sdk_errors_translated

    throttled = _status_error(sdk, 429, {"retry-after": "7"})
    module = openai_chat if sdk is openai else anthropic_provider

    translated = sdk_errors_translated(module.SDK_TRANSIENT_ERRORS, module.SDK_PERMANENT_ERRORS)
    with pytest.raises(ProviderTransientError) as raised, translated:
        raise throttled

    assert raised.value.retry_after == 7.0


def test_an_error_outside_the_sdk_is_left_alone(monkeypatch):
    monkeypatch.setattr(openai_chat, "client", lambda base_url="": _raising_client(KeyError("x")))

    with pytest.raises(KeyError):
        openai_chat.chat_create({"model": "gpt-4.1-mini", "messages": []})


def test_a_provider_error_survives_pickling_as_a_retried_task_needs():
    error = ProviderTransientError("RateLimitError", "Error code: 429", 3.0)

    copy = pickle.loads(pickle.dumps(error))

    assert type(copy) is ProviderTransientError
    assert (copy.kind, copy.detail, copy.retry_after) == ("RateLimitError", "Error code: 429", 3.0)
    assert str(copy) == "RateLimitError: Error code: 429"
