"""``python -m model pretrain`` on the corpus, end to end: one place that knows where a run reads, starts and
writes, so the training loop itself stays a plain function that tests and the live page can call on their own.

It builds and tokenizes the corpus, picks the vocabulary and the starting model, runs the loop (under ``torchrun``
too), exports the model, and records the run in ``runs.json`` and the model card, with the starting weights'
evaluation beside a continued run's so the card can say what the run changed.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from ..checkpoint import EMBEDDED_DIR, load_folder, save_folder
from ..data.corpus import build_corpus, extend_vocab, iter_documents
from ..data.fetch import default_cache_dir
from ..data.minilm import load_minilm
from ..data.sources import STANDALONE_SOURCES, corpus_sources
from ..modeling import BertForPreTraining
from ..tokenization import BertTokenizer
from . import card
from .batching import fixed_eval_batches, parallel_batches, tokenize_corpus
from .distributed import finish_distributed, setup_distributed
from .evaluate import evaluate as evaluate_folder
from .pretrain import PretrainSettings, pretrain, use_bf16
from .starting_model import INIT_KEYWORDS, deepen, init_from_folder, init_from_minilm, init_from_scratch


def export(model: BertForPreTraining, tokenizer: BertTokenizer, folder: Path, *, half: bool = True) -> Path:
    """Write an inference checkpoint (float16 by default, to keep the embedded model small)."""
    return save_folder(model, tokenizer, folder, dtype=torch.float16 if half else None)


def build_vocab(minilm_dir: Path, corpus_path: Path) -> list[str]:
    """MiniLM's English WordPiece vocabulary plus the Chinese characters our corpus uses at least 3 times."""
    base = (minilm_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    texts = (s for doc in iter_documents(corpus_path) if doc["lang"] == "zh" for s in doc["sentences"])
    return extend_vocab(base, texts, min_count=3)


@dataclass
class PretrainJob:
    """Where a pre-training run on the corpus starts from, and where it reads and writes."""

    init: str  # "minilm", "embedded" (continue the shipped model), "scratch", or a folder an earlier run exported
    command: str  # as typed, recorded in the model card
    cache_dir: Path | None = None  # default: $BERT_LAB_CACHE or ~/.cache/bert-lab
    state_dir: Path | None = None  # checkpoints for resuming (default: CACHE/pretrain)
    out_dir: Path | None = None  # the exported model (default: the embedded model's folder)
    workers: int = 0
    skip_missing: bool = False

    def continues_from(self) -> Path | None:
        """The model folder whose weights, vocabulary and run history a continued run starts from."""
        if self.init == "embedded":
            return EMBEDDED_DIR
        return None if self.init in INIT_KEYWORDS else Path(self.init)


def run_job(job: PretrainJob, settings: PretrainSettings, on_step: Callable[[int, dict], None] | None = None):
    """Build the corpus, start the model as ``job.init`` says, pre-train, export, record the run and write the
    card. Returns the run's summary on rank 0 (``None`` on other ranks); ``on_step`` is called on rank 0 only."""
    cache_dir = job.cache_dir or default_cache_dir()
    state_dir = job.state_dir or cache_dir / "pretrain"
    out_dir = job.out_dir or EMBEDDED_DIR
    ddp, device = setup_distributed()
    rank = torch.distributed.get_rank() if ddp else 0
    sources = corpus_sources(settings.source_weights)  # an opt-in source joins only a run that weights it
    stats = build_corpus(cache_dir, sources=sources, progress=rank == 0, skip_missing=job.skip_missing)
    corpus_dir = cache_dir / "corpus"
    minilm_dir = load_minilm(cache_dir) if job.init == "minilm" else None

    state_dir.mkdir(parents=True, exist_ok=True)
    vocab_path = state_dir / "vocab.txt"
    start_dir = job.continues_from()
    if start_dir is not None:  # a continued model's vocabulary comes with it
        vocab = (start_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    elif vocab_path.exists():  # a resumed run must keep the vocabulary its weights were trained with
        vocab = vocab_path.read_text(encoding="utf-8").splitlines()
    else:
        vocab = build_vocab(minilm_dir or load_minilm(cache_dir), corpus_dir / "train.jsonl")
        if rank == 0:
            vocab_path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer.from_vocab(vocab, lowercase=True)
    if job.init == "minilm":
        model = init_from_minilm(minilm_dir, vocab, dropout=settings.dropout, seed=settings.seed)
    elif start_dir is not None:
        model = init_from_folder(start_dir, dropout=settings.dropout)
    else:
        model = init_from_scratch(len(vocab), dropout=settings.dropout, seed=settings.seed)
    if (settings.distill or settings.add_layers_after) and start_dir is None:
        raise ValueError("--distill and --add-layer-after change a trained model: continue from a folder (--init)")
    # The starting weights, before any step; taken before added layers, which do not change what it predicts.
    teacher = copy.deepcopy(model) if settings.distill else None
    deepen(model, settings)  # before a resumed state, which holds the deeper model, loads
    # What the starting weights read: every source of every run in its history (none recorded: all of them).
    read_before = (
        frozenset(s for run in card.read_runs(start_dir) for s in run.get("sources", ())) if start_dir else None
    )
    unknown = set(settings.source_weights) - set(stats["sources"])
    if unknown:
        raise ValueError(f"--source-weight names sources the corpus lacks: {sorted(unknown)}")
    train = tokenize_corpus(
        corpus_dir / "train.jsonl", tokenizer, settings.source_weights, STANDALONE_SOURCES, read_before or None
    )
    heldout = tokenize_corpus(corpus_dir / "heldout.jsonl", tokenizer, standalone_sources=STANDALONE_SOURCES)
    stream = parallel_batches(train, tokenizer, settings, seed=settings.seed * 1000 + rank, workers=job.workers)
    eval_batches = fixed_eval_batches(heldout, tokenizer, settings) if rank == 0 else None

    # What the run changes: the starting weights' evaluation, once (a resumed run reads it back).
    before = metrics_before(start_dir, state_dir) if start_dir is not None and rank == 0 else None
    started = time.time()
    metrics = pretrain(
        model,
        stream,
        settings,
        eval_batches=eval_batches,
        state_dir=state_dir,
        on_step=on_step if rank == 0 else None,
        device=device,
        ddp=ddp,
        teacher=teacher,
    )
    summary = None
    if rank == 0:
        model.to("cpu").eval()
        history = card.read_runs(start_dir) if start_dir is not None else []
        export(model, tokenizer, out_dir)
        summary = {
            "init": job.init,
            "command": job.command,
            "steps": metrics["step"],
            "batch_size": settings.batch_size,
            "seq_len": settings.seq_len,
            "seconds": round(metrics["total_seconds"]),
            "device": f"{device} ({card.hardware()}, {torch.get_num_threads()} thread(s)"
            + (", bf16 autocast)" if use_bf16(device, settings.bf16) else ")"),
            "sources": list(stats["sources"]),
            # What model/data/sentence_index.py needs to know which sentences the run left out.
            "excluded_sentences": stats["params"].get("excluded_sentences"),
            **({"whole_word": True} if settings.whole_word else {}),
            **({"distill": settings.distill} if settings.distill else {}),
            **({"added_layers_after": list(settings.add_layers_after)} if settings.add_layers_after else {}),
            **({"trained_added_only": True} if settings.train_added_only else {}),
            **({"source_weights": settings.source_weights} if settings.source_weights else {}),
            "mlm_only_sources": sorted(STANDALONE_SOURCES & set(stats["sources"])),
            "train_tokens": train.token_counts(),
            "heldout_tokens": heldout.token_counts(),
            **({"before": before} if before else {}),
        }
        card.write_runs(out_dir, [*history, summary])
        card.write_card(out_dir)
        summary = {**summary, "metrics": metrics, "seconds_this_run": round(time.time() - started, 1)}
        (state_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    if ddp:
        finish_distributed()
    return summary


def metrics_before(folder: Path, state_dir: Path) -> dict:
    """``python -m model evaluate`` of the weights a continued run starts from, kept as ``state_dir/before.json``
    so that a resumed run reports the same starting point."""
    path = state_dir / "before.json"
    if not path.exists():
        path.write_text(json.dumps(evaluate_folder(load_folder(folder))) + "\n", encoding="utf-8")
    return json.loads(path.read_text(encoding="utf-8"))


__all__ = ["PretrainJob", "build_vocab", "export", "metrics_before", "run_job"]
