"""Analysis results kept on disk, per set of weights: measured once, read back by every later server and process.

A result's file name holds what made it: the weights' fingerprint (``search.weights_fingerprint``, as the
corpus-search index's folder does), the question asked (a task, a language, sizes), and a digest of the source files
of the code and data that computed it, so that a changed model, sample or analysis is measured anew rather than read
stale. Files are written to a temporary name and renamed: a reader never sees half a file. A result is computed once
across processes: whoever asks while another process (a replica, a test worker) or session computes it waits for it
under a lock file and reads its result (two replicas started together measured the head lab's statistics twice, on
the same two cores). Where the cache folder cannot be written, results are computed each time, as without a store.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, TypeVar

from ..checkpoint import LoadedBert
from ..data.fetch import default_cache_dir
from .search import weights_fingerprint

T = TypeVar("T")
UNREADABLE = (OSError, ValueError, KeyError, EOFError)  # not there yet, or not whole: measure again


@lru_cache(maxsize=64)
def code_digest(sources: tuple[Path, ...]) -> str:
    """Read once per process: the sources of a running server do not change under it."""
    digest = hashlib.blake2b(digest_size=6)
    for path in sources:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def result_path(
    kind: str, bundle: LoadedBert, question: str, sources: Iterable[Path], suffix: str, cache_dir: Path | None = None
) -> Path:
    """``CACHE/kind/question-code-weights.suffix``; ``question`` is made of letters, digits, ``-`` and ``.``."""
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return cache / kind / f"{question}-{code_digest(tuple(sources))}-{weights_fingerprint(bundle)}{suffix}"


def write_atomically(path: Path, write: Callable[[BinaryIO], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=path.suffix)
    try:
        with os.fdopen(handle, "wb") as fh:
            write(fh)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def stored(path: Path, read: Callable[[Path], T], compute: Callable[[], T], write: Callable[[T, Path], None]) -> T:
    """``read(path)``, else ``compute()``'s result, stored there with ``write(result, path)`` (which writes
    atomically); computed by one process at a time, so that the others wait and read it."""
    try:
        return read(path)
    except UNREADABLE:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(path.name + ".lock"), "w")  # noqa: SIM115 - held for the with block below
    except OSError:  # a cache folder that cannot be written: computed each time
        return compute()
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return read(path)  # another process computed it while this one waited
        except UNREADABLE:
            pass
        value = compute()
        try:
            write(value, path)
        except OSError:
            pass
        return value


def stored_json(path: Path, compute: Callable[[], dict]) -> dict:
    """The JSON result at ``path``, else ``compute()``'s, stored there."""
    return stored(
        path,
        lambda p: json.loads(p.read_text(encoding="utf-8")),
        compute,
        lambda value, p: write_atomically(p, lambda fh: fh.write(json.dumps(value).encode("utf-8"))),
    )
