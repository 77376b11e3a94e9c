"""What keeps a long pre-training run's memory small (issue #41; bench/pretrain_memory.py measures a real run)."""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from model.tokenization import BertTokenizer
from model.training import batching
from model.training import pretrain as pt
from model.training.pretraining_data import draw_nsp_pair

ROOT = Path(__file__).resolve().parents[1]


def tiny_tokenizer() -> BertTokenizer:
    return BertTokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(60)])


def _write_corpus(path: Path, documents: int, sentences: int, words: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for d in range(documents):
            text = [" ".join(f"w{rng.randrange(60)}" for _ in range(words)) for _ in range(sentences)]
            f.write(json.dumps({"lang": "en" if d % 2 else "zh", "source": f"s{d % 3}", "sentences": text}) + "\n")


def test_a_tokenized_corpus_holds_about_two_bytes_a_token(tmp_path):
    """What the loaded corpus keeps, counted by tracemalloc (Python objects and numpy buffers alike), stays within
    what its content needs: 2 bytes a token (ids below 65,536 fit uint16), one 8-byte offset a sentence, and per
    document an offset, its language and source references and its entry in the draw tables (a list slot and an int
    or a float, under 128 bytes). An array object per sentence (about 112 bytes of header) would break the bound."""
    path = tmp_path / "train.jsonl"
    documents, sentences, words = 1_000, 20, 16
    _write_corpus(path, documents, sentences, words)
    tokenizer = tiny_tokenizer()
    batching.tokenize_corpus(path, tokenizer)  # builds the ids cache; the load below is what a run keeps
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    corpus = batching.tokenize_corpus(path, tokenizer)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    tokens = sum(corpus.token_counts().values())
    assert tokens == documents * sentences * words  # each "wN" is one token of the tiny vocabulary
    bound = 2 * tokens + 8 * documents * sentences + 128 * documents + 64 * 1024  # + a constant for small tables
    assert kept <= bound, f"{kept / tokens:.2f} bytes a token kept; the bound allows {bound / tokens:.2f}"
    assert corpus.documents.ids.dtype == np.uint16


def test_compact_documents_read_as_the_lists_they_were_built_from():
    rng = np.random.default_rng(0)
    lists = [[rng.integers(5, 70, size=rng.integers(0, 6)) for _ in range(rng.integers(0, 5))] for _ in range(40)]
    documents = batching.Documents.from_lists(lists)
    kept = [[s.tolist() for s in doc if len(s)] for doc in lists]  # empty sentences are left out
    assert [[s.tolist() for s in doc] for doc in documents] == kept
    assert documents.token_counts().tolist() == [sum(map(len, doc)) for doc in kept]
    for d, doc in enumerate(kept):
        compact = documents[d]
        assert len(compact) == len(doc)
        for start in range(len(doc) + 1):
            assert [s.tolist() for s in compact[start:]] == doc[start:]
        if doc:
            assert compact[-1].tolist() == doc[-1]
    with pytest.raises(IndexError):
        documents[len(lists)]


def test_nsp_pairs_drawn_from_compact_documents_match_those_drawn_from_lists():
    rng = np.random.default_rng(1)
    lists = [[rng.integers(5, 70, size=rng.integers(1, 12)) for _ in range(rng.integers(1, 8))] for _ in range(30)]
    compact = batching.Documents.from_lists(lists)
    for seed in range(50):
        old, new = (
            draw_nsp_pair(docs, lambda r: r.randrange(30), random.Random(seed), budget=20, short_seq_prob=0.3)
            for docs in (lists, compact)
        )
        assert [s.tolist() for s in new.a] == [s.tolist() for s in old.a]
        assert [s.tolist() for s in new.b] == [s.tolist() for s in old.b]
        assert (new.is_next, new.document, new.other_document) == (old.is_next, old.document, old.other_document)


def test_the_kernel_caches_are_bounded_unless_the_environment_says_otherwise(monkeypatch):
    for variable in pt.KERNEL_CACHE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LRU_CACHE_CAPACITY", "1024")
    pt.limit_kernel_caches()
    assert os.environ["LRU_CACHE_CAPACITY"] == "1024"
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == str(pt.KERNEL_CACHE_ENTRIES)


def test_the_pretrain_command_bounds_the_kernel_caches_before_its_first_matmul():
    """The caches read the setting once, when first used: the command must set it before anything runs."""
    code = (
        "import os, sys\n"
        "from model.training import pretrain, pretrain_job\n"
        "def stop(*a, **k):\n"
        "    print([os.environ.get(v) for v in pretrain.KERNEL_CACHE_VARIABLES]); sys.exit(0)\n"
        "pretrain_job.run_job = stop\n"
        "from model.cli import main\n"
        "main(['pretrain', '--steps', '1'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in pt.KERNEL_CACHE_VARIABLES}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == str([str(pt.KERNEL_CACHE_ENTRIES)] * 2), out.stderr[-2000:]
