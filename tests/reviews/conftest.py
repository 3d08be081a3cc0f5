import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def empty_cache():
    """Cached agreement from one test must not leak into another that reuses row ids."""
    cache.clear()
    yield
    cache.clear()
