"""The one access rule of a served tool world: a trial's own token opens it, nothing else.

Tokens are handed out once when a run's worlds start (golden/worlds/runs.py); only their sha256
is stored. A finished run's tokens are cleared, so its worlds stop answering.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from core.errors import ApplicationError
from golden.models import EvalTrial

TOKEN_PREFIX = "etw_"


def tool_token_new() -> tuple[str, str]:
    """(token to hand out, hash to store)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, tool_token_hash(token)


def tool_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str) -> str:
    scheme, _, value = (authorization or "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def trial_world_open(trial_id: int, token: str) -> EvalTrial:
    """The trial whose world this token opens; one 401 for an unknown trial or a wrong token,
    so a caller cannot probe which trials exist."""
    trial = (
        EvalTrial.objects.select_related("entry", "eval_run")
        .filter(pk=trial_id)
        .exclude(tool_token_hash="")
        .first()
    )
    if (
        not token
        or trial is None
        or not hmac.compare_digest(trial.tool_token_hash, tool_token_hash(token))
    ):
        raise ApplicationError(
            "Unknown trial or wrong tool-world token: send the trial's token as "
            "'Authorization: Bearer <token>' (the run may have finished).",
            field="authorization",
            code="not_authenticated",
            status_code=401,
        )
    return trial
