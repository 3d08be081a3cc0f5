"""Embeddings for topics, where a model is configured: OpenAI's embeddings API through the
`openai` SDK, at OpenAI or any compatible server (TOPICS_EMBEDDING_BASE_URL).

Documents go in batches of TOPICS_EMBEDDING_BATCH, each cut to TOPICS_EMBEDDING_MAX_CHARS, so
a build's calls and request sizes are bounded. Any failure raises EmbeddingError: the caller
falls back to TF-IDF and records why.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings

from core.shared_clients import SharedClients


class EmbeddingError(RuntimeError):
    """The embeddings could not be had; the message says why, for the build's record."""


_clients: SharedClients = SharedClients()


def embeddings_configured() -> bool:
    return bool(settings.TOPICS_EMBEDDING_MODEL)


def _client():
    import openai  # the SDK loads only when embeddings are configured

    key = (
        settings.TOPICS_EMBEDDING_BASE_URL,
        settings.TOPICS_EMBEDDING_API_KEY,
        settings.TOPICS_EMBEDDING_TIMEOUT_SECONDS,
    )
    return _clients.get(
        key,
        lambda: openai.OpenAI(
            # A local server may take no key; the SDK insists on one.
            api_key=settings.TOPICS_EMBEDDING_API_KEY or "no-key",
            base_url=settings.TOPICS_EMBEDDING_BASE_URL or None,
            max_retries=1,
            timeout=settings.TOPICS_EMBEDDING_TIMEOUT_SECONDS,
        ),
    )


def texts_embed(texts: list[str]) -> np.ndarray:
    """One row per text, L2-normalised (k-means on them then groups by cosine)."""
    import openai

    model = settings.TOPICS_EMBEDDING_MODEL
    if not model:
        raise EmbeddingError("no embedding model is configured")
    batch = max(1, settings.TOPICS_EMBEDDING_BATCH)
    limit = settings.TOPICS_EMBEDDING_MAX_CHARS
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch):
        chunk = [(text or " ")[:limit] for text in texts[start : start + batch]]
        try:
            response = _client().embeddings.create(model=model, input=chunk)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"{type(exc).__name__}: {str(exc)[:200]}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(chunk):
            raise EmbeddingError(f"{len(data)} embeddings for {len(chunk)} texts")
        rows += [item.embedding for item in data]
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2 or not matrix.shape[1]:
        raise EmbeddingError("the embeddings are not vectors of one size")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
