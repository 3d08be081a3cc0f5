"""Django's Redis cache with one Redis client per connection pool, not one a command.

Django's client builds a new `redis.Redis` for every cache call, and building one fills its
table of about 170 reply callbacks: three of them a judge pass (its request lease's add, get and
delete), about 7% of a pass's CPU in a worker. A `redis.Redis` takes a connection from its
pool per command, so one is safe to share between threads and green threads.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class SharedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients_by_pool: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients_by_pool.get(id(pool))
        if client is None:
            client = self._clients_by_pool.setdefault(id(pool), self._client(connection_pool=pool))
        return client


class SharedClientRedisCache(RedisCache):
    """settings.CACHES' BACKEND for a Redis location: Django's RedisCache otherwise."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
