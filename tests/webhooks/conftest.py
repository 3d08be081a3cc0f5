import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver():
    handle = Receiver()
    yield handle
    handle.stop()
