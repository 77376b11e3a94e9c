"""Held-out evaluation of a pre-trained BERT: MLM top-1/top-5 and NSP accuracy per language.

The sample is fixed and ships with the repository (``heldout_sample.jsonl``): text pairs drawn once from the
corpus's held-out documents by pre-training's own ``draw_nsp_pair``. Any model, with any tokenizer, is
measured on the same text, and nothing depends on a training flag (batch size, sequence length, language
share). Masks are drawn with pre-training's ``mask_tokens`` under a fixed seed.

Two MLM figures are reported, because they differ a lot: over all prediction targets (as pre-training's loss
sees them), and at ``[MASK]`` positions only. The 10% of targets that are kept unchanged are almost always
right (the answer is in the input), which flatters the first figure.

A second fixed sample of the same kind (``modern_sample.jsonl``) is drawn only from the held-out documents of the
corpus's modern sources, the text the first sample predates: Tatoeba's documents and LibreOffice's help in both
languages, State of the Union addresses and e-mail in English. Its [MASK] accuracy says how well a model reads
today's language.

The everyday cloze score asks what a teacher asks in class: one content word of a short everyday sentence is
masked (``cloze_sample.jsonl``, drawn from Tatoeba's held-out sentences, CC-BY 2.0 FR), and the model's top-1
and top-5 answers are compared with it.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..checkpoint import LoadedBert
from ..data.sentence_index import TrainingSentences
from ..data.tatoeba import is_heldout
from ..data.text import approx_tokens
from ..inference import pretraining_model
from .pretraining_data import MASKED, draw_nsp_pair, mask_tokens, random_token_pool

SAMPLE_PATH = Path(__file__).resolve().parent / "heldout_sample.jsonl"
MODERN_PATH = Path(__file__).resolve().parent / "modern_sample.jsonl"
# The sources of each sample: the first one's are those the corpus had when it was drawn, so that it stays the same
# text as sources join the corpus.
SAMPLE_SOURCES = (
    "brown",
    "austen",
    "web",
    "wiki",
    "wordnet",
    "shakespeare",
    "peoples-daily",
    "sanguo",
    "fortunes-zh",
)
MODERN_SOURCES = ("tatoeba-en", "sotu", "email-en", "libreoffice-help-en", "tatoeba-zh", "libreoffice-help-zh")
CLOZE_PATH = Path(__file__).resolve().parent / "cloze_sample.jsonl"
CLOZE_PER_LANGUAGE = 300
# Words a cloze item never asks for: the answer should need the sentence's meaning, not its grammar.
EN_FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at by for from with as is am are was were be been being have has had do "
    "does did not no yes it its this that these those there here he she they we you i me him her them us my your "
    "his their our what which who whom whose when where why how will would can could shall should may might must "
    "than then so too very just also only all any some each every both either neither about into over under "
    "out up down off again once more most much many such own same other tom mary".split()
)
ZH_FUNCTION_CHARS = frozenset("的了是在我你他她它们这那有不也就都和与及着或个上下吗呢吧啊么很把被给让从到对说要会能没")
PAIRS_PER_LANGUAGE = 256
SEQ_LEN = 128  # tokens per pair with [CLS] and the two [SEP], as in pre-training
SAMPLE_SEED = 20261130
MASK_SEED = 12345
BATCH_SIZE = 32


@dataclass(frozen=True)
class SamplePair:
    lang: str
    a: str
    b: str
    is_next: bool
    source: str


def build_sample(
    heldout_path: Path, sources: tuple[str, ...], *, pairs_per_language: int = PAIRS_PER_LANGUAGE, name: str = ""
) -> list[SamplePair]:
    """Draw a fixed sample from the held-out documents of ``sources`` in the corpus's ``heldout.jsonl``
    (``python -m model evaluate --write-sample``); ``name`` gives each sample its own random draw.

    Documents are drawn in proportion to their length, as in pre-training; sentence lengths are estimated
    without a tokenizer (``approx_tokens``) so the sample does not depend on any model's vocabulary.
    """
    # The corpus builder loads only to redraw the sample: the model card (and through it the app) imports this module.
    from ..data.corpus import iter_documents

    docs = [d for d in iter_documents(heldout_path) if d["sentences"] and d["source"] in sources]
    sample = []
    for lang in ("en", "zh"):
        ours = [i for i, d in enumerate(docs) if d["lang"] == lang]
        weights = [sum(approx_tokens(s) for s in docs[i]["sentences"]) for i in ours]
        rng = random.Random(f"{SAMPLE_SEED}:{name}{lang}")
        documents = [d["sentences"] for d in docs]
        for _ in range(pairs_per_language):
            pair = draw_nsp_pair(
                documents,
                lambda r, ours=ours, weights=weights: r.choices(ours, weights=weights)[0],
                rng,
                budget=SEQ_LEN - 3,
                length=approx_tokens,
            )
            joiner = "" if lang == "zh" else " "
            sample.append(
                SamplePair(lang, joiner.join(pair.a), joiner.join(pair.b), pair.is_next, docs[pair.document]["source"])
            )
    return sample


def write_sample(sample: list[SamplePair], path: Path = SAMPLE_PATH) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for p in sample:
            f.write(json.dumps(p.__dict__, ensure_ascii=False) + "\n")


def load_sample(path: Path = SAMPLE_PATH) -> list[SamplePair]:
    with open(path, encoding="utf-8") as f:
        return [SamplePair(**json.loads(line)) for line in f if line.strip()]


@dataclass(frozen=True)
class ClozeItem:
    lang: str
    text: str  # the sentence with one word replaced by [MASK]
    answer: str  # lower-cased


def build_cloze(
    sentences_by_lang: dict[str, list[str]], vocab: set[str], read: TrainingSentences, skip: int = 0
) -> list[ClozeItem]:
    """Draw the everyday cloze sample (``python -m model evaluate --write-sample``) from Tatoeba's held-out
    sentences: short ones, one content word each (English) or one content character (Chinese) that is a single
    token of ``vocab`` (BERT's uncased English vocabulary and the Chinese characters of the embedded model).

    A sentence ``read`` holds (the shipped model's training sentences) is passed over: Tatoeba holds it out, but
    another source or another spelling of it gave it to the model ("Well begun is half done."), and an item the model
    read measures its memory. It is passed over after its word is drawn, so that every other item stays as it was.

    ``skip`` passes over that many items per language first: ``skip=CLOZE_PER_LANGUAGE`` draws a second sample of
    the same kind that shares no sentence with the shipped one (``bench/cloze_confirmation.py``)."""
    items = []
    for lang in ("en", "zh"):
        held = [s for s in sentences_by_lang[lang] if is_heldout(s)]
        if lang == "en":
            held = [s for s in held if 4 <= len(s.split()) <= 14 and s.isascii()]
        else:
            held = [s for s in held if 5 <= len(s) <= 20]
        rng = random.Random(f"{SAMPLE_SEED}:cloze:{lang}")
        rng.shuffle(held)
        drawn = 0
        for sentence in held:
            if lang == "en":
                spans = [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z]+", sentence)]
                spans = [
                    (a, b)
                    for a, b in spans
                    if b - a >= 3 and sentence[a:b].lower() not in EN_FUNCTION_WORDS and sentence[a:b].lower() in vocab
                ]
            else:
                spans = [
                    (i, i + 1)
                    for i, ch in enumerate(sentence)
                    if "\u4e00" <= ch <= "\u9fff" and ch not in ZH_FUNCTION_CHARS and ch in vocab
                ]
            if not spans:
                continue
            a, b = rng.choice(spans)
            if sentence in read:
                continue
            drawn += 1
            if drawn <= skip:
                continue
            items.append(ClozeItem(lang, sentence[:a] + "[MASK]" + sentence[b:], sentence[a:b].lower()))
            if sum(item.lang == lang for item in items) == CLOZE_PER_LANGUAGE:
                break
    return items


def load_cloze(path: Path = CLOZE_PATH) -> list[ClozeItem]:
    with open(path, encoding="utf-8") as f:
        return [ClozeItem(**json.loads(line)) for line in f if line.strip()]


def write_cloze(items: list[ClozeItem], path: Path = CLOZE_PATH) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item.__dict__, ensure_ascii=False) + "\n")


@torch.no_grad()
def cloze_outcomes(bundle: LoadedBert, items: list[ClozeItem] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Per language, per item: whether the answer is the model's first guess (``top1``), or among its five
    (``top5``). An answer that is not one token of the model's vocabulary counts as missed."""
    items = load_cloze() if items is None else items
    model, tok = pretraining_model(bundle), bundle.tokenizer
    outcomes: dict[str, dict[str, np.ndarray]] = {}
    for lang in sorted({item.lang for item in items}):
        ours = [item for item in items if item.lang == lang]
        top1, top5 = [], []
        for start in range(0, len(ours), BATCH_SIZE):
            chunk = ours[start : start + BATCH_SIZE]
            rows = [tok.encode(item.text).ids for item in chunk]
            ids = torch.full((len(rows), max(map(len, rows))), tok.pad_token_id)
            attention = torch.zeros_like(ids)
            for i, row in enumerate(rows):
                ids[i, : len(row)] = torch.tensor(row)
                attention[i, : len(row)] = 1
            at_mask = ids == tok.mask_token_id  # one [MASK] per sentence
            out = model(ids, torch.zeros_like(ids), attention, mlm_labels=torch.where(at_mask, 0, -100))
            guesses = out.mlm_logits.topk(5, dim=-1).indices.tolist()  # (B, 5), sentences in order
            for item, best in zip(chunk, guesses):
                words = [tok.id_to_token(i).lower() for i in best]
                top1.append(words[0] == item.answer)
                top5.append(item.answer in words)
        outcomes[lang] = {"top1": np.array(top1, dtype=float), "top5": np.array(top5, dtype=float)}
    return outcomes


def everyday_cloze(bundle: LoadedBert, items: list[ClozeItem] | None = None) -> dict[str, dict[str, float]]:
    """Per language: how often the answer is the model's first guess, or among its five."""
    return {
        lang: {"cloze_top1": o["top1"].mean(), "cloze_top5": o["top5"].mean(), "cloze_items": len(o["top1"])}
        for lang, o in cloze_outcomes(bundle, items).items()
    }


def _encode_pair(bundle: LoadedBert, pair: SamplePair) -> tuple[list[int], list[int]]:
    """``[CLS] A [SEP] B [SEP]`` ids and segment ids, the longer side trimmed from its end to fit ``SEQ_LEN``
    (or the model's positions, if it has fewer)."""
    tok = bundle.tokenizer
    limit = min(SEQ_LEN, bundle.config.max_position_embeddings)
    a = tok.encode(pair.a).ids[1:-1]
    b = tok.encode(pair.b).ids[1:-1]
    while len(a) + len(b) > limit - 3:
        if len(a) > len(b):
            a = a[:-1]
        else:
            b = b[:-1]
    ids = [tok.cls_token_id, *a, tok.sep_token_id, *b, tok.sep_token_id]
    return ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)


PAIR_FIELDS = ("targets", "top1", "top5", "masks", "mask_top1", "mask_top5", "nsp_right")


@torch.no_grad()
def mlm_outcomes(bundle: LoadedBert, sample: list[SamplePair], draws: int = 1) -> dict[str, dict[str, np.ndarray]]:
    """Per language, per pair (in sample order): the counts of ``PAIR_FIELDS`` when each pair is masked ``draws``
    times by pre-training's own code (a fresh draw each time), and whether its next-sentence answer is right.
    Each sample draws its masks from its own generator, so one sample's masks do not depend on another's, and
    the first draw is the same whatever ``draws`` is."""
    model, tok = pretraining_model(bundle), bundle.tokenizer
    pool = random_token_pool(tok)
    # A generator per draw: the first draws exactly the masks of a one-draw evaluation.
    generators = [torch.Generator().manual_seed(MASK_SEED + draw) for draw in range(draws)]
    by_language = {}
    for lang in sorted({p.lang for p in sample}):
        pairs = [p for p in sample if p.lang == lang]
        counts = {name: np.zeros(len(pairs)) for name in PAIR_FIELDS}
        for start in range(0, len(pairs), BATCH_SIZE):
            chunk = pairs[start : start + BATCH_SIZE]
            rows = slice(start, start + len(chunk))
            encoded = [_encode_pair(bundle, p) for p in chunk]
            T = max(len(ids) for ids, _ in encoded)
            ids = torch.full((len(chunk), T), tok.pad_token_id)
            types = torch.zeros((len(chunk), T), dtype=torch.long)
            attention = torch.zeros((len(chunk), T), dtype=torch.long)
            for i, (row, segments) in enumerate(encoded):
                ids[i, : len(row)] = torch.tensor(row)
                types[i, : len(row)] = torch.tensor(segments)
                attention[i, : len(row)] = 1
            candidates = (attention == 1) & (ids != tok.cls_token_id) & (ids != tok.sep_token_id)
            for draw, generator in enumerate(generators):
                masked = mask_tokens(
                    ids, candidates, mask_token_id=tok.mask_token_id, random_token_ids=pool, generator=generator
                )
                out = model(masked.input_ids, types, attention, mlm_labels=masked.labels)
                chosen = masked.labels != -100
                owner = chosen.nonzero()[:, 0].numpy()  # the pair of each target, targets in row-major order
                targets = masked.labels[chosen]  # (N,)
                best = out.mlm_logits.topk(5, dim=-1).indices  # (N, 5): the head runs at chosen positions only
                hit1 = (best[:, 0] == targets).numpy()
                hit5 = (best == targets[:, None]).any(dim=1).numpy()
                at_mask = (masked.outcome[chosen] == MASKED).numpy()
                for name, per_target in (
                    ("targets", np.ones_like(hit1)),
                    ("top1", hit1),
                    ("top5", hit5),
                    ("masks", at_mask),
                    ("mask_top1", hit1 & at_mask),
                    ("mask_top5", hit5 & at_mask),
                ):
                    counts[name][rows] += np.bincount(owner, weights=per_target, minlength=len(chunk))
                if draw == 0:
                    is_next = torch.tensor([p.is_next for p in chunk])
                    counts["nsp_right"][rows] = ((out.nsp_logits.argmax(dim=-1) == 0) == is_next).numpy()  # 0 = IsNext
        by_language[lang] = counts
    return by_language


def mlm_counts(bundle: LoadedBert, sample: list[SamplePair]) -> dict[str, dict[str, int]]:
    """Per language: the model's hits over all targets, at [MASK] positions only, and its next-sentence answers,
    summed over the pairs (one mask draw each)."""
    return {
        lang: {name: int(values.sum()) for name, values in counts.items()} | {"pairs": len(counts["targets"])}
        for lang, counts in mlm_outcomes(bundle, sample).items()
    }


def evaluate(
    bundle: LoadedBert, sample: list[SamplePair] | None = None, modern: list[SamplePair] | None = None
) -> dict[str, dict[str, float]]:
    """Per language: ``mlm_top1``/``mlm_top5`` over all targets, ``mask_top1``/``mask_top5`` at ``[MASK]``
    only, ``nsp_accuracy``, the same [MASK] figures on the modern sample (``modern_mask_top1``/``_top5``), the
    everyday cloze, and the counts they rest on."""
    sample = load_sample() if sample is None else sample
    modern = load_sample(MODERN_PATH) if modern is None else modern
    results = {}
    for lang, c in mlm_counts(bundle, sample).items():
        results[lang] = {
            "mlm_top1": c["top1"] / c["targets"],
            "mlm_top5": c["top5"] / c["targets"],
            "mask_top1": c["mask_top1"] / c["masks"],
            "mask_top5": c["mask_top5"] / c["masks"],
            "nsp_accuracy": c["nsp_right"] / c["pairs"],
            "pairs": c["pairs"],
            "targets": c["targets"],
            "masks": c["masks"],
        }
    for lang, c in mlm_counts(bundle, modern).items():
        results.setdefault(lang, {}).update(
            {
                "modern_mask_top1": c["mask_top1"] / c["masks"],
                "modern_mask_top5": c["mask_top5"] / c["masks"],
                "modern_pairs": c["pairs"],
                "modern_masks": c["masks"],
            }
        )
    for lang, scores in everyday_cloze(bundle).items():
        results.setdefault(lang, {}).update(scores)
    return results
