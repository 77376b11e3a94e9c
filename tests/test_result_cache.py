"""The byte-bounded cache of per-sentence results: its total stays within the budget, least recently used first
out, entries expire, results are shared read-only, and the app's large results go through it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from app.core import models
from app.core.result_cache import ByteBoundedCache, nbytes


@dataclass
class Result:
    maps: np.ndarray
    tokens: list


def result(kib: int) -> Result:
    return Result(np.zeros(kib * 256, dtype=np.float32), ["a"])  # kib KiB of floats


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_total_stays_within_the_budget_least_recently_used_out_first():
    cache = ByteBoundedCache(budget=lambda: 10 * 1024)
    for key in "abc":
        cache.get_or_make(key, lambda: result(4))
    assert len(cache) == 2 and cache.bytes == 8 * 1024  # a third 4 KiB would pass 10 KiB: "a" went
    made = []
    cache.get_or_make("b", lambda: made.append("b") or result(4))  # used again: now the most recent
    cache.get_or_make("d", lambda: result(4))
    assert made == [] and cache.get_or_make("b", lambda: made.append("b2") or result(4)) is not None
    assert made == []  # "c" went, not "b"
    assert cache.bytes <= 10 * 1024


def test_an_entry_larger_than_the_budget_is_returned_but_not_kept():
    cache = ByteBoundedCache(budget=lambda: 1024)
    big = cache.get_or_make("big", lambda: result(8))
    assert nbytes(big) == 8 * 1024 and len(cache) == 0 and cache.bytes == 0


def test_entries_expire_and_results_are_read_only():
    clock = Clock()
    cache = ByteBoundedCache(budget=lambda: 10**6, ttl=60, clock=clock)
    first = cache.get_or_make("k", lambda: result(1))
    with pytest.raises(ValueError):
        first.maps[0] = 1.0  # shared by every session: nobody may change it
    assert cache.get_or_make("k", lambda: result(1)) is first
    clock.now = 61
    assert cache.get_or_make("k", lambda: result(1)) is not first


def test_the_apps_attention_maps_and_embedding_parts_are_held_by_bytes(monkeypatch):
    monkeypatch.setattr(models, "RESULTS", ByteBoundedCache(budget=lambda: 10**9))
    both = models.attention_both("embedded", "She opened a door.")
    parts = models.embeddings("embedded", "She opened a door.")
    assert models.RESULTS.bytes == nbytes(both) + nbytes(parts) > 0
    assert models.attention_both("embedded", "She opened a door.") is both  # shared, not copied
    assert not both[0].attentions.flags.writeable
