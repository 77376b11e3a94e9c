"""Per-sentence results held by bytes, not by count: the attention maps of one sentence are 230 KB for the embedded
model at 20 tokens and 300 MB for BERT-Base at 512 (both readings), so a bound of sixteen entries meant anything
from 4 MB to 4.8 GB. Entries are shared by every session that asks (read-only arrays, never copied) and dropped,
least recently used first, when the total passes the budget, or an hour after they were made."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator

import cachetools
import numpy as np

CACHE_TTL = 3600  # seconds an entry is kept at most
# The bound on every byte-bounded cache together (``BERT_LAB_RESULT_CACHE_MB``, default 1024): a class server's
# memory beside the models and the training processes.
DEFAULT_BUDGET_MB = 1024
_MISSING = object()


def budget_bytes() -> int:
    return int(float(os.environ.get("BERT_LAB_RESULT_CACHE_MB", DEFAULT_BUDGET_MB)) * 2**20)


def arrays(value) -> Iterator[np.ndarray]:
    """The numpy arrays ``value`` holds, in its attributes, tuples, lists and dicts (a result dataclass)."""
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from arrays(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from arrays(v)
    elif hasattr(value, "__dict__"):
        yield from arrays(vars(value))


def nbytes(value) -> int:
    """The bytes of ``value``'s arrays; the rest of a result is small."""
    return sum(array.nbytes for array in arrays(value))


def frozen(value):
    """``value`` with its arrays made read-only: a shared result that one page changed would change on all."""
    for array in arrays(value):
        array.flags.writeable = False
    return value


class ByteBoundedCache:
    """A thread-safe LRU of results, by key, whose arrays together stay within ``budget()`` bytes and which expire
    ``ttl`` seconds after they were made: cachetools' ``TTLCache`` with each entry's size in bytes. An entry larger
    than the whole budget is returned but not kept."""

    def __init__(self, budget: Callable[[], int] = budget_bytes, ttl: float = CACHE_TTL, clock=time.monotonic):
        self._entries = cachetools.TTLCache(maxsize=budget(), ttl=ttl, timer=clock, getsizeof=nbytes)
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe

    def get_or_make(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            found = self._entries.get(key, _MISSING)
        if found is not _MISSING:
            return found
        value = frozen(make())  # outside the lock: another session's lookup need not wait for this pass
        with self._lock:
            try:
                self._entries[key] = value
            except ValueError:  # larger than the whole budget
                pass
        return value

    @property
    def bytes(self) -> int:
        with self._lock:
            self._entries.expire()
            return int(self._entries.currsize)

    def __len__(self) -> int:
        with self._lock:
            self._entries.expire()
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
