"""Cleaning and sentence splitting shared by every corpus source: plain Python, no torch."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

# Sentence length limits, in characters. Longer sentences are cut at commas and semicolons, and dropped if
# that is not possible; shorter ones are noise ("I.", "——").
MIN_SENTENCE_CHARS = 3
MAX_SENTENCE_CHARS = {"en": 600, "zh": 200}
# Repeated sentences at least this long are dropped after their first occurrence; shorter ones ("Yes, sir.",
# "曹操大怒。") legitimately recur in dialogue and are kept.
DEDUP_MIN_CHARS = {"en": 25, "zh": 10}


def is_cjk_char(ch: str) -> bool:
    """BERT's ``_is_chinese_char``: the CJK Unified Ideographs blocks (not Japanese kana or Korean hangul)."""
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def sentence_key(sentence: str) -> str:
    """What "the same sentence" means when the app's sentences are compared with the corpus: case, punctuation and
    spacing aside, the same words in the same order."""
    return re.sub(r"[\W_]+", " ", sentence.lower()).strip()


_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    """Remove ANSI terminal escapes (colours, cursor moves) such as ``\\x1b[33m`` and ``\\x1b[m``."""
    return _ANSI_RE.sub("", text)


# Full-width ASCII forms (U+FF01-FF5E) that Chinese text uses for digits and Latin letters ("１９９８年", "ＳＯＤ")
# become ASCII, one character for one, so character-level tags stay aligned. The full-width punctuation that
# Chinese writing uses as its own (，！？：；（）) stays.


# Full-width ASCII forms (U+FF01-FF5E) that Chinese text uses for digits and Latin letters ("１９９８年", "ＳＯＤ")
# become ASCII, one character for one, so character-level tags stay aligned. The full-width punctuation that
# Chinese writing uses as its own (，！？：；（）) stays.
_ZH_KEEP_FULLWIDTH = set("，！？：；（）")


_FULLWIDTH_TABLE = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F) if chr(cp) not in _ZH_KEEP_FULLWIDTH}
_FULLWIDTH_TABLE[0x3000] = 0x20  # ideographic space


def normalize_zh(text: str) -> str:
    """Full-width digits, letters and ASCII symbols to ASCII (length-preserving); ideographic space to space."""
    return text.translate(_FULLWIDTH_TABLE)


def join_zh_tokens(words: Iterable[str]) -> str:
    """Join segmented Chinese words: no space, except between two Latin/digit runs ("SOD 酶", "A B")."""
    out: list[str] = []
    for w in words:
        if (
            out
            and out[-1]
            and w
            and out[-1][-1].isascii()
            and out[-1][-1].isalnum()
            and w[0].isascii()
            and w[0].isalnum()
        ):
            out.append(" ")
        out.append(w)
    return "".join(out)


def strip_pos_tags(line: str) -> str:
    """People's Daily ``word/POS`` tokens to plain text: ``迈向/v  充满/v`` → ``迈向充满``."""
    words = [tok.rpartition("/")[0] or tok for tok in line.split()]
    return join_zh_tokens(normalize_zh(w) for w in words)


def join_wrapped_lines(lines: Iterable[str]) -> str:
    """Join hard-wrapped lines of one paragraph: with a space, except where both sides are CJK (or CJK punct)."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out and not (_is_zh_side(out[-1]) and _is_zh_side(line[0])):
            out += " "
        out += line
    return out


def _is_zh_side(ch: str) -> bool:
    return is_cjk_char(ch) or ("\u3000" <= ch <= "\u303f") or ("\uff00" <= ch <= "\uffef") or ch in "“”‘’…—"


# English abbreviations after which a full stop does not end the sentence.


# English abbreviations after which a full stop does not end the sentence.
_EN_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "rev", "hon", "gen", "col", "capt", "lt", "sgt", "maj",
    "gov", "sen", "rep", "messrs", "mme", "mlle", "vs", "etc", "e.g", "i.e", "cf", "no", "nos", "vol", "vols",
    "fig", "figs", "inc", "ltd", "co", "corp", "mt", "ft", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "a.m", "p.m", "ca", "approx", "dept", "est", "op", "pp",
    "ch", "viz", "al",
}  # fmt: skip


_EN_BOUNDARY_RE = re.compile(r"([.!?]+)([\"'”’)\]]*)(\s+)(?=[\"'“‘(\[]*[A-Z0-9])")


def split_sentences_en(text: str) -> list[str]:
    """Rule-based English sentence splitter.

    Splits after ``.``, ``!`` or ``?`` (with any closing quotes or brackets) that is followed by whitespace and
    a capital letter or digit, unless the full stop closes an abbreviation (Mr., Mrs., Dr., St., e.g.) or an
    initial ("J. R. R. Tolkien").
    """
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return []
    out: list[str] = []
    start = 0
    for m in _EN_BOUNDARY_RE.finditer(text):
        if m.group(1) == ".":
            before = text[start : m.start()].rsplit(" ", 1)[-1].lstrip("\"'“‘([")
            word = before.lower()
            if word in _EN_ABBREVIATIONS or (len(before) == 1 and before.isalpha() and before.isupper()):
                continue
            if re.fullmatch(r"(?:[a-z]\.)+[a-z]", word):  # "U.S", "e.g" written out with stops
                continue
        end = m.start(3)
        sentence = text[start:end].strip()
        if sentence:
            out.append(sentence)
        start = m.end(3)
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


_ZH_TERMINATORS = set("。！？；!?")


_ZH_OPEN_QUOTES = set("“‘「『")


_ZH_CLOSE_QUOTES = set("”’」』")


_ZH_CLOSERS = _ZH_CLOSE_QUOTES | set("）)》】")


def split_sentences_zh(text: str) -> list[str]:
    """Split Chinese text after 。！？； (and ASCII ! ?), keeping closing quotes and brackets with the sentence.

    A terminator inside quotation marks (“……。……”) does not split, so a quoted speech stays whole, unless
    the quotation ends right after it (“……。” splits after the ”). Line breaks always split.
    """
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        buf: list[str] = []
        depth = 0
        i, n = 0, len(line)
        while i < n:
            ch = line[i]
            buf.append(ch)
            i += 1
            if ch in _ZH_OPEN_QUOTES:
                depth += 1
            elif ch in _ZH_CLOSE_QUOTES:
                depth = max(0, depth - 1)
            elif ch in _ZH_TERMINATORS:
                while i < n and (line[i] in _ZH_TERMINATORS or line[i] in _ZH_CLOSERS):
                    if line[i] in _ZH_CLOSE_QUOTES:
                        depth = max(0, depth - 1)
                    buf.append(line[i])
                    i += 1
                if depth == 0:
                    out.append("".join(buf).strip())
                    buf = []
        if buf:
            out.append("".join(buf).strip())
    return [s for s in out if s]


def _split_long(sentence: str, lang: str) -> list[str]:
    """Cut an over-long sentence at soft breaks (；;：:，,) into pieces within the limit; [] if impossible."""
    limit = MAX_SENTENCE_CHARS[lang]
    if len(sentence) <= limit:
        return [sentence]
    if lang == "zh":  # first try the terminators that a quotation shielded
        parts = re.findall(r".+?(?:[。！？；!?][”’」』）)]*|$)", sentence)
        if len(parts) > 1 and all(len(p) <= limit for p in parts):
            return [p for p in parts if p]
    breaks = r"(?<=[；;：:，,])" if lang == "zh" else r"(?<=[;:,])\s+"
    pieces = [p for p in re.split(breaks, sentence) if p]
    out: list[str] = []
    cur = ""
    for p in pieces:
        sep = "" if lang == "zh" or not cur else " "
        if len(cur) + len(sep) + len(p) <= limit:
            cur += sep + p
        else:
            if cur:
                out.append(cur)
            cur = p
    if cur:
        out.append(cur)
    if any(len(p) > limit for p in out):
        return []
    return out


def tidy_sentences(sentences: Iterable[str], lang: str) -> list[str]:
    """Collapse whitespace, cut over-long sentences, drop ones under 3 characters or without a letter."""
    out: list[str] = []
    for s in sentences:
        s = re.sub(r"\s+", " ", s).strip()
        if lang == "zh":
            s = re.sub(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])", "", s)  # spaces between CJK characters
        for piece in _split_long(s, lang):
            piece = piece.strip()
            if len(piece) < MIN_SENTENCE_CHARS:
                continue
            if lang == "en" and not re.search(r"[A-Za-z]", piece):
                continue
            if lang == "zh" and sum(map(is_cjk_char, piece)) < 0.3 * len(piece.replace(" ", "")):
                continue  # mostly Latin or digits: a command line, a URL, a table row
            out.append(piece)
    return out


def split_sentences(text: str, lang: str) -> list[str]:
    """Split ``text`` into tidy sentences with the language's splitter."""
    raw = split_sentences_zh(text) if lang == "zh" else split_sentences_en(text)
    return tidy_sentences(raw, lang)


# Brown's tokens that attach to the previous word, and those that attach to the next.


# Brown's tokens that attach to the previous word, and those that attach to the next.
_ATTACH_LEFT = {
    ",",
    ".",
    ";",
    ":",
    "?",
    "!",
    ")",
    "]",
    "}",
    "''",
    "%",
    "'s",
    "n't",
    "'re",
    "'ve",
    "'ll",
    "'d",
    "'m",
    "...",
    "'",
}


_ATTACH_RIGHT = {"(", "[", "{", "``", "$"}


def detokenize(words: Iterable[str]) -> str:
    """Join space-separated tokens into natural text: ``the dog , he said`` → ``the dog, he said``.

    Penn/Brown quotes ````` and ``''`` become ``"``.
    """
    out = ""
    glue_next = True
    for w in words:
        if not w:
            continue
        text = {"``": '"', "''": '"'}.get(w, w)
        if out and not glue_next and w not in _ATTACH_LEFT:
            out += " "
        out += text
        glue_next = w in _ATTACH_RIGHT
    return out


def paragraph_sentences(paragraphs: Iterable[str], lang: str) -> list[str]:
    out: list[str] = []
    for p in paragraphs:
        out.extend(split_sentences(p, lang))
    return out


def fortune_documents(text: str, lang: str, clean_line: Callable[[str], str | None]) -> Iterator[list[str]]:
    """A fortune file's documents, one per ``%``-separated fortune: its blank-line blocks are paragraphs, each line
    stripped and passed through ``clean_line`` (``None`` drops it), wrapped lines joined, then split into sentences."""
    for fortune in re.split(r"\n%\n", text):
        paragraphs = []
        for block in blocks(fortune.splitlines()):
            lines = [kept for kept in (clean_line(line.strip()) for line in block) if kept is not None]
            if lines:
                paragraphs.append(join_wrapped_lines(lines))
        sentences = paragraph_sentences(paragraphs, lang)
        if sentences:
            yield sentences


def blocks(lines: Iterable[str]) -> Iterator[list[str]]:
    """Group lines into blank-line separated blocks."""
    block: list[str] = []
    for line in lines:
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def approx_tokens(text: str) -> int:
    """A rough WordPiece token count: one per CJK character and punctuation mark, ~1.3 per English word."""
    cjk = sum(1 for c in text if is_cjk_char(c))
    words = len(re.findall(r"[A-Za-z0-9]+", text))
    punct = len(re.findall(r"[^\w\s]", text))
    return cjk + punct + round(words * 1.3)


def word_tags(line: str) -> list[tuple[str, str]]:
    """A tagged corpus line, ``word/TAG word/TAG ...`` (Brown, People's Daily), as (word, tag) pairs; tokens
    without a tag are skipped. A word may itself hold "/", so the tag is what follows the last one."""
    pairs = []
    for token in line.split():
        word, sep, tag = token.rpartition("/")
        if sep and word:
            pairs.append((word, tag))
    return pairs
