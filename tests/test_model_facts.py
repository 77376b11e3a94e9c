"""The fill-mask and GPT-vs-BERT pages say what the model is (size, reading) and offer a bigger BERT in one click."""

from __future__ import annotations

import math

import pytest
from apptest_helpers import open_app_page

from app.core import model_facts as facts
from app.core.i18n import strings_of
from model.checkpoint import EMBEDDED_DIR, read_config
from model.modeling import BertConfig, bert_base, count_parameters
from model.training.card import read_runs

TEXT = strings_of("model_facts")


def test_facts_come_from_the_config_and_the_run_records():
    config = read_config(EMBEDDED_DIR)
    runs = read_runs(EMBEDDED_DIR)
    found = facts.model_facts(config, runs)
    assert (found.layers, found.hidden, found.heads) == (
        config.num_hidden_layers,
        config.hidden_size,
        config.num_attention_heads,
    )
    assert found.parameters == count_parameters(config)["total"]
    assert found.corpus_tokens == runs[-1]["train_tokens"] and found.corpus_total > 1_000_000
    assert found.bert_base_ratio == pytest.approx(3.3e9 / found.corpus_total)
    unknown = facts.model_facts(config, [])
    assert unknown.corpus_total == 0 and math.isnan(unknown.bert_base_ratio)


def test_only_bigger_models_are_offered_biggest_first():
    small, big = (
        BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128),
        bert_base(),
    )
    large = BertConfig(num_hidden_layers=24, hidden_size=1024, num_attention_heads=16, intermediate_size=4096)
    current = count_parameters(BertConfig(num_hidden_layers=6, hidden_size=384, num_attention_heads=12))["total"]
    offers = facts.bigger_models(current, lang="zh", folders={"/m/small": small, "/m/large": large}, hub_available=True)
    assert [(o.choice, o.folder) for o in offers] == [("folder", "/m/large"), ("bert-base-chinese", "")]
    assert offers[1].parameters == count_parameters(big)["total"] and offers[0].name == "large"
    assert facts.bigger_models(current, lang="en", folders={}, hub_available=False) == []
    assert facts.bigger_models(current, lang="en", folders={}, hub_available=True)[0].choice == "bert-base-uncased"
    assert facts.bigger_models(count_parameters(large)["total"], lang="en", folders={}, hub_available=True) == []


def _info(at) -> str:
    return "\n".join(box.value for box in at.info)


@pytest.mark.parametrize(("page", "lang"), [("fill_mask", "en"), ("gpt_vs_bert", "zh")])
def test_the_page_says_how_big_the_model_is_and_how_much_it_read(page, lang, monkeypatch):
    monkeypatch.setattr(facts, "hub_available", lambda repo_id: False)  # offline, as in class
    at = open_app_page(page, lang)
    config, runs = read_config(EMBEDDED_DIR), read_runs(EMBEDDED_DIR)
    shown = _info(at)
    parameters = f"{count_parameters(config)['total'] / 1e6:.1f}M"
    assert f"{config.num_hidden_layers} " in shown and str(config.hidden_size) in shown and parameters in shown
    ratio = f"{3.3e9 / sum(runs[-1]['train_tokens'].values()):,.0f}"
    assert ratio in shown and ("3.3 billion" if lang == "en" else "33亿") in shown
    assert not [b for b in at.button if "_switch_" in str(b.key)]  # no hub, and no bigger folder chosen


@pytest.mark.parametrize(("page", "lang"), [("fill_mask", "zh"), ("gpt_vs_bert", "en")])
def test_a_bigger_bert_is_one_click_away(page, lang, monkeypatch, hf_checkpoint):
    folder = str(hf_checkpoint[0])
    # The hub answers; the test's folder is declared bigger than the embedded model (it is tiny, so it loads fast).
    monkeypatch.setattr(facts, "hub_online", lambda: True)
    monkeypatch.setattr(facts, "local_folders", lambda: {folder: bert_base()})
    at = open_app_page(page, lang)
    switches = [b for b in at.button if "_switch_" in str(b.key)]
    hub = {"en": "bert-base-uncased", "zh": "bert-base-chinese"}[lang]
    assert any(hub in b.label for b in switches) and TEXT["hub_note"][lang] in [c.value for c in at.caption]
    folder_button = next(b for b in switches if folder in str(b.key))
    folder_button.click().run()
    assert not at.exception
    assert at.session_state["model_choice"] == "folder" and at.session_state["model_folder"] == folder
    assert TEXT["no_records"][lang] in _info(at)  # the page now runs the folder's model, which has no runs.json
