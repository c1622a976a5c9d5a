"""The key of a rate-limit bucket, bounded: whatever a client sends, a bucket's key is short.

A key is made of what a client sent (its address, the name it logs in as); the request schemas
bound those, and this bounds the key again where it is kept (``server.edge.LocalBuckets`` in
memory, ``runtime.redis_rates.RedisBuckets`` on Redis): a key longer than ``MAX_KEY`` is kept
as a hash of itself, so a long one costs no more memory than a short one.
"""

from __future__ import annotations

import hashlib

MAX_KEY = 64  # characters


def bucket_key(key: str) -> str:
    """``key`` itself when short, else ``#`` and its BLAKE2b-128 in hex (33 characters)."""
    if len(key) <= MAX_KEY:
        return key
    return "#" + hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
