"""Offline for real: with a fresh cache and every fetch made to fail (no pip download, npm or apt, no connection
off this machine), every page opens in both languages and runs its first actions, the layers lab's probe and word
geometry included (their English data is Brown, shipped in the repository)."""

from __future__ import annotations

import socket

import pytest
from apptest_helpers import open_app_page

from app.core.navigation import PAGE_FILES
from model.data import fetch
from model.data.fetch import FetchError

LOOPBACK_PREFIXES = ("127.", "::1", "localhost")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """A machine that has never been online: an empty cache, and every way out refused."""
    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path / "cache"))
    tried: list[str] = []

    def no_download(cmd, *args, **kwargs):
        tried.append(" ".join(map(str, cmd)))
        raise FetchError(f"{cmd[0]}: offline")

    real_connect = socket.socket.connect

    def local_only(self, address):
        host = address[0] if isinstance(address, tuple) else str(address)
        if not str(host).startswith(LOOPBACK_PREFIXES):
            tried.append(f"connect {host}")
            raise OSError("offline")
        return real_connect(self, address)

    monkeypatch.setattr(fetch, "_run", no_download)
    monkeypatch.setattr(socket.socket, "connect", local_only)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **k: local_only(None, address))
    return tried


def test_the_offline_fixture_refuses_a_fetch(offline):
    with pytest.raises(FetchError):
        fetch.fetch_npm("corpus-sotu@1.0.0")
    with pytest.raises(OSError):
        socket.create_connection(("huggingface.co", 443), timeout=1)
    assert len(offline) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_opens_offline(offline, page, lang):
    at = open_app_page(page, lang)
    assert not at.error, [e.value for e in at.error]
    assert [attempt for attempt in offline if "npm" in attempt or "pip" in attempt] == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_layers_lab_probes_and_measures_offline(offline, lang):
    at = open_app_page("layers", lang, layers_train=20, layers_test=20, layers_contexts=8)
    at.default_timeout = 300
    at.button(key="layers_run_probe").click().run(timeout=300)
    at.button(key="layers_run_geometry").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    assert not at.error and not at.warning, [e.value for e in (*at.error, *at.warning)]
    assert len(at.dataframe) >= 1  # the probe's table per layer
    assert offline == []  # nothing even tried to go out
