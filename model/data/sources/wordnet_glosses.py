"""WordNet's definitions, each said as a sentence: "berlin is the capital of germany located in eastern germany."

Running text rarely states what things are: a cup of [MASK] every morning needs to know that coffee is a drink, and
the capital of Germany needs a sentence that says so. WordNet defines 117,000 senses of everyday and proper words;
each definition becomes one plain sentence (a noun "is", a verb "is to", an adjective or adverb "means"). Opt-in
(``pretrain --source-weight wordnet-glosses=W``), so that it can be measured on and off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_deb
from ..text import tidy_sentences

SOURCE = {
    "id": "wordnet-glosses",
    "lang": "en",
    "name": "WordNet 3.0 definitions, each as one sentence (noun: 'X is ...', verb: 'to X is to ...', "
    "adjective and adverb: 'X means ...'), eight senses a document in the files' order",
    "licence": "WordNet 3.0 licence (free to use, copy and distribute)",
    "obtained": "Debian wordnet-base (apt-get download + dpkg-deb -x), data.{noun,verb,adj,adv}",
    "standalone_sentences": True,  # neighbouring senses are unrelated: no next-sentence label from them
    "opt_in": True,  # only in a run that names it in --source-weight
}
SENTENCES_PER_DOCUMENT = 8
DETERMINERS = ("a ", "an ", "the ", "any ", "one ", "some ", "someone ", "something ", "(")
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def definition_sentence(line: str) -> str | None:
    """One ``data.*`` line as a sentence that defines its first word, or ``None`` (licence header, no gloss)."""
    if line.startswith("  ") or " | " not in line:
        return None
    fields, gloss = line.split(" | ", 1)
    parts = fields.split()
    pos, word = parts[2], parts[4]
    word = word.split("(")[0].replace("_", " ")  # adjectives carry a position marker: "galore(ip)"
    definition = gloss.split(";")[0].split('"')[0].strip().rstrip(".:,")
    if not definition or not word:
        return None
    if pos == "n":
        if word[0].isupper() and not definition.lower().startswith(DETERMINERS):
            definition = "the " + definition  # "capital of Germany" names one thing
        sentence = f"{word} is {definition}."
    elif pos == "v":
        sentence = f"to {word} is to {definition}."
    else:
        sentence = f"{word} means {definition}."
    return sentence[0].upper() + sentence[1:]


def parse_glosses(folder: Path) -> Iterator[list[str]]:
    """Documents of ``SENTENCES_PER_DOCUMENT`` definitions, in the files' order (nouns, verbs, adjectives, adverbs)."""
    for pos in ("noun", "verb", "adj", "adv"):
        lines = (folder / f"data.{pos}").read_text(encoding="utf-8", errors="replace").splitlines()
        sentences = [s for s in map(definition_sentence, lines) if s]
        for start in range(0, len(sentences), SENTENCES_PER_DOCUMENT):
            kept = tidy_sentences(sentences[start : start + SENTENCES_PER_DOCUMENT], "en")
            if kept:
                yield kept


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_glosses(fetch_deb("wordnet-base", cache) / "usr/share/wordnet")
