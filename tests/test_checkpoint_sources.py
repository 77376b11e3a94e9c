"""Where a model may come from: a hub id's config is fetched and checked before any weights; classroom mode's
models folder admits only the names of folders directly inside it."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import huggingface_hub
import pytest

from model import checkpoint
from model.checkpoint import CheckpointError, load, resolve


def _hub(monkeypatch, tmp_path: Path, config: dict) -> list[str]:
    """A hub that serves ``config`` as config.json and records every weights download asked of it."""
    asked: list[str] = []
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))

    def config_download(repo_id, filename, **kwargs):
        asked.append(f"file:{filename}")
        return str(folder / filename)

    def snapshot(repo_id, **kwargs):
        asked.append("snapshot")
        raise OSError("the test's hub holds no weights")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", config_download)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot)
    monkeypatch.setattr(checkpoint, "hub_reachable", lambda: True)  # the test's hub is online
    return asked


def test_an_absurd_hub_model_is_refused_before_its_weights_are_downloaded(monkeypatch, tmp_path):
    asked = _hub(monkeypatch, tmp_path, {"model_type": "bert", "hidden_size": 10**7, "num_attention_heads": 1})
    with pytest.raises(CheckpointError, match="hidden_size"):
        load("someone/huge-bert")
    assert asked == ["file:config.json"]


def test_a_hub_id_that_is_not_a_bert_is_refused_before_its_weights(monkeypatch, tmp_path):
    asked = _hub(monkeypatch, tmp_path, {"model_type": "gpt2"})
    with pytest.raises(CheckpointError, match="is not one of BERT.s family"):
        load("someone/gpt")
    assert asked == ["file:config.json"]


def test_a_sound_hub_config_goes_on_to_the_weights(monkeypatch, tmp_path):
    asked = _hub(monkeypatch, tmp_path, {"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4})
    with pytest.raises(CheckpointError) as caught:
        load("someone/small-bert")
    assert caught.value.code == "hub_unreachable"  # the test's hub has no weights to give
    assert asked == ["file:config.json", "snapshot"]


def test_offline_a_hub_id_reads_only_an_earlier_download_and_fails_at_once(monkeypatch, tmp_path):
    asked = []

    def snapshot(repo_id, **kwargs):
        asked.append(kwargs.get("local_files_only"))
        if repo_id != "someone/downloaded-before":
            raise huggingface_hub.errors.LocalEntryNotFoundError("not in the cache")
        return str(tmp_path)

    def download(*args, **kwargs):
        raise AssertionError("offline, the network is not asked")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot)
    monkeypatch.setattr(checkpoint, "hub_reachable", lambda: False)
    assert checkpoint.download_from_hub("someone/downloaded-before") == tmp_path
    with pytest.raises(CheckpointError) as caught:
        checkpoint.download_from_hub("someone/never-downloaded")
    assert caught.value.code == "hub_unreachable" and asked == [True, True]


def test_the_hub_probe_tells_a_listening_host_from_a_closed_port_within_its_timeout(monkeypatch):
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    assert checkpoint.hub_reachable()
    listening.close()
    start = time.monotonic()
    assert not checkpoint.hub_reachable()
    assert time.monotonic() - start < checkpoint.HUB_PROBE_SECONDS
    monkeypatch.setenv("HF_ENDPOINT", "https://no-such-host.invalid")
    assert not checkpoint.hub_reachable()


@pytest.fixture
def models_dir(tmp_path) -> Path:
    root = tmp_path / "models"
    (root / "tiny-bert").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "config.json").write_text("{}")
    os.symlink(tmp_path / "outside", root / "escape")
    return root


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ("../outside", "only_names"),
        ("/etc", "only_names"),
        ("tiny-bert/../../outside", "only_names"),
        ("..", "only_names"),
        ("~", "not_in_models_dir"),
        ("escape", "not_in_models_dir"),  # a symlink out of the folder
        ("bert-base-uncased", "not_in_models_dir"),  # a hub id
        ("no-such-model", "not_in_models_dir"),
    ],
)
def test_classroom_mode_admits_only_folders_inside_the_models_folder(models_dir, spec, code):
    with pytest.raises(CheckpointError) as caught:
        resolve(spec, models_dir=models_dir)
    assert caught.value.code == code
    assert str(models_dir.parent) not in str(caught.value)  # the message names no server path


def test_classroom_mode_resolves_a_folder_inside_it(models_dir):
    assert resolve("tiny-bert", models_dir=models_dir) == ("folder", models_dir / "tiny-bert")
    assert resolve("embedded", models_dir=models_dir)[0] == "embedded"
