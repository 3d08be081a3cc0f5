"""The Redis broker: kombu's Redis transport, its commands sent through one client a channel.

kombu builds a new redis-py client for every acknowledgement and every message it takes or
publishes, and a client sets up some 170 response callbacks as it is made. A client is safe to
share between threads (each command takes a connection from the pool, and pipelines are made
per use), so a channel keeps one for its pool and makes another only when the pool is new.
"""

from kombu.transport import redis


class Channel(redis.Channel):
    _command_client: tuple | None = None  # (the pool, its client)

    def _create_client(self, asynchronous=False):
        if asynchronous:
            # The consumer's own connection (BRPOP, fanout), made once by kombu.
            return super()._create_client(asynchronous=True)
        pool = self.pool
        shared = self._command_client
        if shared is None or shared[0] is not pool:
            shared = (pool, super()._create_client())
            self._command_client = shared
        return shared[1]


class Transport(redis.Transport):
    Channel = Channel
