"""The Redis broker sends a channel's commands through one client, and messages still flow."""

import pytest
from django.conf import settings
from kombu import Connection

from evalsite.broker_redis import Channel, Transport

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (REDIS_URL)")


def test_a_channel_makes_one_command_client_per_pool_and_messages_round_trip():
    with Connection(settings.REDIS_URL, transport=Transport) as connection:
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        queue = connection.SimpleQueue("evalsite-broker-test")
        queue.clear()

        first = channel._create_client()
        assert channel._create_client() is first
        assert channel._create_client(asynchronous=True) is not first
        for n in range(3):
            queue.put({"n": n})
        received = []
        for _ in range(3):
            message = queue.get(timeout=5)
            received.append(message.payload["n"])
            message.ack()
        assert received == [0, 1, 2]
        assert channel._create_client() is first

        channel._pool = None  # as kombu does when the connection is lost
        renewed = channel._create_client()
        assert renewed is not first and renewed.connection_pool is channel.pool
        queue.put({"n": 3})
        assert queue.get(timeout=5).payload == {"n": 3}
        queue.clear()
        queue.close()


def test_celery_publishes_and_consumes_through_it():
    from evalsite.celery import app

    with app.connection_for_write() as connection:
        assert isinstance(connection.default_channel, Channel)
