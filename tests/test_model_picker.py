"""The sidebar's model picker on a network: a typed server path or hub id only for the person at the machine
(loopback, the app's default) or where BERT_LAB_ANY_MODEL=1 says so; elsewhere the embedded model, and in
classroom mode the models folder's entries. Whatever the session's state says, nothing else is loaded, and no
message tells whether a server path exists."""

from __future__ import annotations

import shutil
import time

import pytest
from apptest_helpers import open_app_page
from streamlit import config


@pytest.fixture
def on_the_network(monkeypatch):
    """The server listens on every interface, as a class server does."""
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    monkeypatch.delenv("BERT_LAB_MODELS_DIR", raising=False)
    monkeypatch.delenv("BERT_LAB_ANY_MODEL", raising=False)
    yield
    config.set_option("server.address", before)


def picker_options(at) -> list[str]:
    return list(at.sidebar.selectbox(key="w_model_choice").options)


def sidebar_text(at) -> str:
    parts = [e.value for kind in ("error", "warning", "info", "caption") for e in getattr(at.sidebar, kind)]
    return " ".join(str(p) for p in parts)


def test_on_loopback_the_picker_takes_a_folder_and_the_hub(monkeypatch):
    monkeypatch.delenv("BERT_LAB_MODELS_DIR", raising=False)
    at = open_app_page("overview", "en")
    assert len(picker_options(at)) == 4  # embedded, a folder, BERT-Base in English and in Chinese


def test_on_the_network_the_picker_offers_the_embedded_model_only(on_the_network):
    at = open_app_page("overview", "en")
    assert len(picker_options(at)) == 1
    assert [w.key for w in at.sidebar.text_input] == []  # no box for a server path


@pytest.mark.parametrize("path", ["/etc", "/etc/passwd", "/no/such/folder", "../../", "bert-base-uncased"])
def test_on_the_network_a_typed_path_in_the_state_is_never_loaded_nor_named(on_the_network, path):
    at = open_app_page("attention", "en", model_choice="folder", model_folder=path)
    assert at.session_state["model_choice"] == "embedded"
    text = sidebar_text(at) + " ".join(e.value for e in at.main.markdown)
    assert path not in text and "no such" not in text.lower() and "missing" not in text.lower()


def test_a_setting_lets_a_networked_server_take_typed_paths(on_the_network, monkeypatch, hf_checkpoint):
    monkeypatch.setenv("BERT_LAB_ANY_MODEL", "1")
    at = open_app_page("attention", "en", model_choice="folder", model_folder=str(hf_checkpoint[0]))
    assert len(picker_options(at)) == 4
    assert at.session_state["model_choice"] == "folder"
    assert not at.sidebar.error


def test_classroom_mode_offers_the_models_folders_entries_only(on_the_network, monkeypatch, tmp_path, hf_checkpoint):
    models = tmp_path / "models"
    shutil.copytree(hf_checkpoint[0], models / "tiny-bert")
    monkeypatch.setenv("BERT_LAB_MODELS_DIR", str(models))
    monkeypatch.setenv("BERT_LAB_ANY_MODEL", "1")  # classroom mode wins over it
    at = open_app_page("attention", "en", model_choice="folder", model_folder="../../etc")
    assert len(picker_options(at)) == 2  # the embedded model and the models folder
    folders = at.sidebar.selectbox(key="w_model_folder")
    assert list(folders.options) == ["tiny-bert"]
    assert at.session_state["model_folder"] == "tiny-bert"
    assert "etc" not in sidebar_text(at)


def test_offline_a_hub_pick_asks_the_network_once_falls_back_and_offers_a_retry(monkeypatch):
    from app.core import models as app_models
    from app.core.i18n import strings_of

    COMMON = strings_of("common")
    from model import checkpoint

    monkeypatch.delenv("BERT_LAB_MODELS_DIR", raising=False)
    monkeypatch.setattr(app_models, "_HUB_FAILED", {})
    asked = []
    monkeypatch.setattr(checkpoint, "hub_reachable", lambda: asked.append("probe") or False)  # offline
    at = open_app_page("fill_mask", "en")
    start = time.monotonic()
    at.sidebar.selectbox(key="w_model_choice").select("bert-base-uncased").run()
    assert time.monotonic() - start < 10 and asked == ["probe"] and not at.exception
    assert at.session_state["model_choice"] == "embedded"  # the picker shows the model that answers
    assert at.sidebar.selectbox(key="w_model_choice").value == "embedded"
    assert "bert-base-uncased" in sidebar_text(at)
    at.sidebar.text_area[0].input(
        "Seven purple giraffes [MASK] the violin at dawn."
    ).run()  # an edit and a page change later,
    at.switch_page("pages/attention.py").run()
    assert asked == ["probe"] and not at.exception  # the network was not asked again
    retry = at.sidebar.button(key="model_retry")
    assert retry.label == COMMON["model_retry"]["en"].format(name="bert-base-uncased")
    retry.click().run()
    assert asked == ["probe", "probe"] and at.session_state["model_choice"] == "embedded"
