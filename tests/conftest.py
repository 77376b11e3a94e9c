"""Shared fixtures: tiny random checkpoints written in Hugging Face's layouts, and a small vocabulary."""

from __future__ import annotations

import os
from pathlib import Path

# As in the app (see app/__init__.py): idle OpenMP teams must not spin while a training thread works.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest
import torch

# Tests must never reach for the network, whatever the machine can do.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# A string the app lacks (a key, a language, a placeholder's value) raises in tests, where the app itself logs it and
# shows a stand-in (app.core.i18n). Set here, before any page runs: AppTest runs pages in this process, and the
# browser tests' server inherits the environment.
os.environ.setdefault("BERT_LAB_STRICT_STRINGS", "1")
# One torch thread a worker when xdist runs several (tests/run.sh: two on two cores): each worker fills a core, where
# two threads each would split every pass over both cores and wait on the slower one whenever the other worker, its
# app server or its training process holds a core (the reason the app's pages run on one thread, app/__init__.py).
WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
torch.set_num_threads(1 if WORKERS > 1 else max(1, min(2, os.cpu_count() or 1)))


def _discover_installed_components_once() -> None:
    """A server scans the installed packages for Streamlit components once, at start; AppTest scans them again for
    every new app it runs (0.2 s a scan, reading each distribution's metadata: about a fifth of a small page test).
    The packages installed do not change while the tests run, so one scan serves every AppTest of this process."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan_once = functools.cache(manifest_scanner.scan_component_manifests)
    manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(scan_once(*args, **kwargs))


_discover_installed_components_once()

# The files that take longest (worker seconds in a fresh clone's `CI=true bash tests/run.sh --junitxml`, two workers,
# the result stores empty as on a new machine, 2026-12-07, session 44: 1,213 s in all), handed to the two workers
# first (tests/run.sh runs xdist with --no-loadscope-reorder, which keeps this order): a long file handed out last runs
# alone while the other worker idles.
HEAVIEST_FIRST = (
    "test_browser.py",  # 332 s
    "test_bert_base_size.py",  # 91 s (the head lab and the sentence-vector pool at both sizes, measured once)
    "test_embedded_model.py",  # 71 s (the shipped weights' held-out evaluation)
    "test_page_finetune.py",  # 71 s
    "test_finetune_jobs.py",  # 68 s
    "test_offline.py",  # 53 s
    "test_variants.py",  # 33 s
    "test_compare.py",  # 30 s
    "test_search.py",  # 26 s
    "test_page_layers_search.py",  # 25 s
    "test_page_layers.py",  # 25 s
    "test_page_fill_mask.py",  # 24 s
    "test_page_sentence_vectors.py",  # 22 s
    "test_cli.py",  # 21 s
    "test_live_pretraining.py",  # 20 s
    "test_hostile_input.py",  # 20 s (61 s before AppTest's component scan was done once a process)
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


WORDS = [
    "the",
    "a",
    "an",
    "and",
    "of",
    "to",
    "in",
    "is",
    "was",
    "she",
    "he",
    "it",
    "opened",
    "door",
    "walked",
    "went",
    "cinema",
    "movie",
    "film",
    "watch",
    "un",
    "##aff",
    "##able",
    "##s",
    "##ing",
    "##ed",
    "play",
    "runn",
    "caf",
    "##e",
    "résumé",
    "naïve",
    "hello",
    "world",
    ",",
    ".",
    "!",
    "?",
    "'",
    '"',
    "(",
    ")",
    "-",
    ":",
    ";",
    "i",
    "you",
    "we",
    "they",
    "2018",
    "bert",
    "model",
    "paris",
    "london",
    "[",
    "]",
    "<",
    ">",
    "/",
    "script",
    "alert",
]
CHINESE = list(
    "我去电影场看很好吃苹果今天天气北京开会他在银行工作中文的是了一不人有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会家可下而过天去能对小多然于心学么之都好看起发当没成只如事把还用第样道想作种开美总从无情己面最女但现前些所同日手又行意动方期它头经长儿回位分爱老因很给名法间斯知世什两次使身者被高已亲其进此话常与活正感"
)


def write_vocab(path: Path) -> list[str]:
    vocab = ["[PAD]"] + [f"[unused{i}]" for i in range(3)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for tok in WORDS + CHINESE:
        if tok not in vocab:
            vocab.append(tok)
    for ch in "abcdefghijklmnopqrstuvwxyz0123456789":
        vocab += [t for t in (ch, "##" + ch) if t not in vocab]
    path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return vocab


def tiny_hf_config(vocab_size: int):
    from transformers import BertConfig as HFConfig

    return HFConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
        attn_implementation="eager",
    )


@pytest.fixture(scope="session")
def hf_checkpoint(tmp_path_factory):
    """A randomly initialised transformers BertForPreTraining saved as model.safetensors + vocab.txt."""
    from transformers import BertForPreTraining as HFBert

    folder = tmp_path_factory.mktemp("hf_tiny")
    vocab = write_vocab(folder / "vocab.txt")
    torch.manual_seed(0)
    model = HFBert(tiny_hf_config(len(vocab))).eval()
    with torch.no_grad():  # non-trivial LayerNorm and bias values, so a swapped name cannot go unnoticed
        for name, p in model.named_parameters():
            if "LayerNorm" in name or name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(folder)
    return folder, model


@pytest.fixture(scope="session")
def tiny_bundle(hf_checkpoint):
    from model.checkpoint import load_folder

    return load_folder(hf_checkpoint[0])
