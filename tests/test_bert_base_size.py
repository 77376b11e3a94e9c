"""Every page at the sizes people load: a random BERT-Base (12 layers, 768 wide, 12 heads) and a random BERT-Large
(24 layers, 1024 wide, 16 heads) checkpoint, written in Hugging Face's layout by ``transformers`` itself and
chosen in the sidebar as a typed folder, opened on every page through AppTest.

The weights are random (no registry holds real BERT weights with their MLM head): this tests that every page
loads, shapes and draws a model of that size, not what it predicts. The vocabulary is the embedded model's, so
both languages tokenize as they do for a real bilingual model. Each page opens in one language, alternating, to
keep the suite's time; ``test_offline.py`` and the page tests cover both languages on the embedded model.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from apptest_helpers import charts, start_app_page

from app.core.i18n import strings_of
from model.analysis.budget import sample_stride
from model.analysis.heads import sample_pairs
from model.checkpoint import EMBEDDED_DIR
from model.data.translation_pairs import load_pool

COMMON = strings_of("common")
HEADS = strings_of("heads")
VECTORS = strings_of("sentence_vectors")

PAGES = sorted(path.stem for path in (Path(__file__).resolve().parents[1] / "pages").glob("*.py"))
SIZES = {"base": (12, 768, 12), "large": (24, 1024, 16)}
# What a test may spend on a page's sample at these sizes: the embedded model's work (a deployment's smallest budget,
# model.analysis.budget), not the default four times it, which test_analysis_heads checks. Each size then reads one
# item in 8 (base) or in 29 (large), and its page must say so.
SAMPLE_BUDGET = "1"


def write_checkpoint(folder: Path, layers: int, hidden: int, heads: int) -> Path:
    from transformers import BertConfig as HFConfig
    from transformers import BertForPreTraining as HFBert

    config = HFConfig(
        vocab_size=len((EMBEDDED_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
    )
    torch.manual_seed(0)
    with torch.device("meta"):  # built without memory, then drawn in float16 (the size of a real checkpoint / 2)
        model = HFBert(config)
    model.to_empty(device="cpu")
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "LayerNorm" in name:
                parameter.fill_(1.0 if name.endswith("weight") else 0.0)
            elif name.endswith("bias"):
                parameter.zero_()
            else:
                parameter.normal_(0.0, 0.02, generator=generator)
    model.half().save_pretrained(folder)
    for name in ("vocab.txt", "tokenizer_config.json"):
        shutil.copy(EMBEDDED_DIR / name, folder / name)
    return folder


@pytest.fixture(scope="module", params=list(SIZES))
def checkpoint(request, tmp_path_factory):
    layers, hidden, heads = SIZES[request.param]
    folder = write_checkpoint(tmp_path_factory.mktemp(f"bert-{request.param}"), layers, hidden, heads)
    yield request.param, folder
    shutil.rmtree(folder, ignore_errors=True)


def figures(at) -> tuple[int, int]:
    """What a page drew: its charts and its embedded views (bertviz)."""
    return len(charts(at)), len(at.get("iframe"))


@pytest.fixture(scope="module")
def embedded_figures() -> dict[tuple[str, str], tuple[int, int]]:
    """Each page's figures on the embedded model, in each language: what it must draw at any size."""
    return {(page, lang): figures(start_app_page(page, lang)) for page in PAGES for lang in ("en", "zh")}


def test_every_page_opens_on_the_model(checkpoint, embedded_figures, monkeypatch):
    size, folder = checkpoint
    layers, hidden, heads = SIZES[size]
    monkeypatch.setenv("BERT_LAB_ANY_MODEL", "1")
    monkeypatch.setenv("BERT_LAB_SAMPLE_BUDGET", SAMPLE_BUDGET)
    stride = sample_stride(SimpleNamespace(num_hidden_layers=layers, hidden_size=hidden))
    assert stride == {"base": 8, "large": 29}[size]
    for i, page in enumerate(PAGES):
        lang = ("en", "zh")[(i + (size == "large")) % 2]
        # A page's first run loads the model and, on the head lab, computes its statistics: minutes for BERT-Large
        # on a loaded machine.
        at = start_app_page(page, lang, timeout=900, model_choice="folder", model_folder=str(folder))
        assert not at.exception, f"{size} {page}: {at.exception[0].message}"
        assert figures(at) == embedded_figures[page, lang], (size, page)
        # the sidebar's summary of the model every page reads: this one, not the embedded default
        summary = COMMON["model_summary"][lang].split(" · {params}")[0]
        summary = summary.format(family=COMMON["family_bert"][lang], layers=layers, hidden=hidden, heads=heads)
        sidebar = [c.value for c in at.sidebar.caption]
        assert any(c.startswith(summary) for c in sidebar), (size, page, sidebar)
        assert not [w.value for w in at.sidebar.warning], (size, page)  # the model loaded, nothing fell back
        # A model this size reads a share of the head lab's sample and of the sentence pool; the page says which.
        notes = {
            "heads": HEADS["sample_stride"][lang].format(stride=stride, pairs=len(sample_pairs(lang))),
            "sentence_vectors": VECTORS["pool_stride"][lang].format(stride=stride, pool=len(load_pool())),
        }
        if page in notes:
            assert any(notes[page] in c.value for c in at.caption), (size, [c.value for c in at.caption])
