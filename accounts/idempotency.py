"""The Idempotency-Key header on POSTs that create work (judge runs, eval runs, imports...).

The first request with a key runs and its answer is stored in the same transaction as the work
it created; a retry with the same key and the same request gets that answer back and creates
nothing. Two racing requests with one key meet on the unique (user, key) row: the second waits
for the first to commit and then reads its answer. Only successful answers are kept, because a
refused request rolls its key back with everything else and may be corrected and sent again.
"""

import functools
import hashlib
import string

from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from accounts.models import IdempotencyKey
from core.errors import ApplicationError
from core.publish import publish_tally

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
_ALLOWED = frozenset(string.ascii_letters + string.digits + "-_.:")

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    name=HEADER,
    type=str,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Any unique string (a UUID) of up to 255 letters, digits and `-_.:`. A retry with the "
        "same key and body gets the first answer again and creates nothing twice."
    ),
)


def _key(request) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not key or len(key) > MAX_KEY_LENGTH or not set(key) <= _ALLOWED:
        raise ApplicationError(
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} letters, digits or -_.:", field=HEADER
        )
    return key


def _request_hash(request) -> str:
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    digest.update(request.body)
    return digest.hexdigest()


def _replay(stored: IdempotencyKey, request_hash: str) -> Response:
    if stored.request_hash != request_hash:
        raise ApplicationError(
            f"This {HEADER} was used for another request.",
            field=HEADER,
            code="idempotency_key_reused",
            status_code=422,
        )
    response = Response(stored.response_body, status=stored.status_code)
    response["Idempotent-Replayed"] = "true"
    return response


def idempotent_post(post):
    """Decorate an APIView's post(): honours Idempotency-Key and documents the header.

    The handler's answer is 202 instead of 201 when the work is stored but its tasks could not
    be published (the broker is down): the sweep will enqueue them."""

    @functools.wraps(post)
    def wrapper(view, request, *args, **kwargs):
        key = _key(request)
        with publish_tally() as tally:
            if key is None:
                response = post(view, request, *args, **kwargs)
            else:
                # Hashed before the handler runs: DRF's parsing consumes the stream.
                request_hash = _request_hash(request)
                stored = IdempotencyKey.objects.filter(user=request.user, key=key).first()
                if stored is not None:
                    return _replay(stored, request_hash)
                try:
                    response = _run_once(post, view, request, key, request_hash, args, kwargs)
                except IntegrityError:
                    stored = IdempotencyKey.objects.get(user=request.user, key=key)
                    return _replay(stored, request_hash)
        if tally.deferred and response.status_code == 201:
            response.status_code = 202
            if key is not None:
                IdempotencyKey.objects.filter(user=request.user, key=key).update(status_code=202)
        return response

    return extend_schema(parameters=[IDEMPOTENCY_PARAMETER])(wrapper)


def _run_once(post, view, request, key, request_hash, args, kwargs) -> Response:
    with transaction.atomic():
        # Claimed first, so a concurrent twin blocks here until this one commits or rolls back.
        with transaction.atomic():
            claim = IdempotencyKey.objects.create(
                user=request.user,
                key=key,
                request_hash=request_hash,
                status_code=0,
                response_body={},
            )
        response = post(view, request, *args, **kwargs)
        if not 200 <= response.status_code < 300:
            transaction.set_rollback(True)
            return response
        claim.status_code = response.status_code
        claim.response_body = response.data
        claim.save(update_fields=["status_code", "response_body"])
    return response
