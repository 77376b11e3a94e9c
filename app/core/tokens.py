"""Tokens as the pages show them: which positions a reader or BERT may mask, each token's surface in the text, and
the reader's text made safe for a Markdown slot."""

from __future__ import annotations

import html
import re
import unicodedata

from model.tokenization import Encoding


def candidate_flags(enc: Encoding, mask_token_id: int) -> list[bool]:
    """Positions BERT may choose: every wordpiece but [CLS], [SEP], [PAD] and a [MASK] the user typed.

    [UNK] stays a candidate, as in the original pre-training data (it is a real position of the text).
    """
    return [not special and token_id != mask_token_id for special, token_id in zip(enc.special, enc.ids)]


def last_word_position(enc: Encoding, mask_token_id: int) -> int | None:
    """The last whole word of the text that is one token and holds a letter or a character (not a number, not
    punctuation, not [UNK], not a piece of a longer word): the word the page masks when a sentence has no [MASK].
    "She opened the door and walked into the room." gives "room"; "我去电影院看电影，电影很好看。" gives its last 看.
    Words are the tokenizer's own (``word_ids``), so RoBERTa's "Ġroom" and ALBERT's "▁room" count as BERT's "room"
    does, and a piece of a longer word is told by its word, not by BERT's "##"."""
    candidates = candidate_flags(enc, mask_token_id)
    words = enc.word_ids
    for i in range(len(enc.tokens) - 1, -1, -1):
        token = enc.tokens[i]
        whole = words[i] is not None and all(words[j] != words[i] for j in (i - 1, i + 1) if 0 <= j < len(words))
        unknown = token.startswith(("[", "<")) and token.endswith(("]", ">"))  # [UNK], <unk>: a word it cannot read
        if candidates[i] and whole and not unknown and any(map(str.isalpha, token)):
            return i
    return None


def mask_selected(text: str, offsets: list[tuple[int, int]], positions, mask: str = "[MASK]") -> str:
    """``text`` with the wordpieces at ``positions`` replaced by ``mask``, using their character offsets.

    Each piece becomes its own [MASK], so masking "un" and "##aff" of "unaffable" gives "[MASK][MASK]able",
    which tokenizes back to two masks. Spans are replaced right to left so earlier offsets stay valid.
    """
    spans = sorted(
        {offsets[p] for p in positions if 0 <= p < len(offsets) and offsets[p][1] > offsets[p][0]}, reverse=True
    )
    for start, end in spans:
        text = text[:start] + mask + text[end:]
    return text


def token_surface(text: str, offsets: list[tuple[int, int]]) -> list[str]:
    """The characters of ``text`` behind each token ("" for [CLS] and [SEP])."""
    return [text[start:end] for start, end in offsets]


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:$>])")


def escape_markdown(text: str) -> str:
    """User text for a Markdown slot (captions, pill labels): HTML escaped, then every Markdown special
    backslash-escaped, so ``**bold**``, ``<b>x</b>``, ``$x$`` or ``:red[x]`` appear literally."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(text, quote=False))


def isolated(text: str) -> str:
    """``text`` in a bidirectional isolate (U+2068 … U+2069): a right-to-left token keeps its own order inside, and
    the sentence around it (a percentage, the next token) keeps the page's order outside."""
    return f"\u2068{text}\u2069"


# Scripts by the first word of their letters' Unicode names (their names for a reader: ``common.script_<NAME>``);
# the CJK ideographs and Latin letters the embedded model reads are not "missing" when a span is unknown for
# another reason (an emoji beside them).
READ_SCRIPTS = ("LATIN", "CJK")


def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ")[0]


def missing_scripts(text: str, enc: Encoding, unk_token_id: int) -> list[str]:
    """The writing systems of ``text`` that the vocabulary holds only as single letters or not at all, by the first
    word of their Unicode names (``ARABIC``), each once, in order: a script whose every piece is [UNK] or one letter
    long is one the model never learnt to read (BERT's vocabulary keeps many scripts' letters, so Arabic comes out as
    ``م ##ر ##ح``, not [UNK])."""
    seen: dict[str, bool] = {}  # script -> whether some piece of it is a whole run of letters
    for token_id, (start, end), special in zip(enc.ids, enc.offsets, enc.special, strict=True):
        letters = [c for c in text[start:end] if unicodedata.category(c).startswith("L")]
        script = _script(letters[0]) if letters and not special else ""
        if not script or script in READ_SCRIPTS:
            continue
        seen[script] = seen.get(script, False) or (token_id != unk_token_id and len(letters) > 1)
    return [script for script, read in seen.items() if not read]
