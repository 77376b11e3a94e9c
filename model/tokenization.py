"""BERT WordPiece tokenization on the ``tokenizers`` library, and the tokenizers of BERT's family.

The pipeline is BERT's own: clean the text, put spaces around every CJK character (so Chinese is one
character per token, as the paper's Chinese model does), optionally lower-case and strip accents, split on
whitespace and punctuation, then greedy longest-match WordPiece with ``##`` continuations. The literal
``[MASK]`` (and the other special tokens) typed in user text is matched before normalisation, so
"I went to the [MASK]." really contains the mask token.

Traditional Chinese can reach a model trained on Simplified text one character at a time, by OpenCC's character
table: after ``fold_traditional()`` (the app calls it on every model it loads), a Traditional character the
vocabulary lacks is read as its Simplified form where the vocabulary has that (機 as 机), and so is one the model
read far less often than its Simplified form, where its folder records which (``read_as_simplified``: the embedded
model's vocabulary holds 飛 and 電, read 40 and 20 times against 1,880 and 7,057 for 飞 and 电). Each character
maps to one, so offsets still point into the text as typed. Other characters are read as they are: a model that
learned Traditional text (bert-base-chinese) keeps its own, and Simplified text keeps 著 (著名), which OpenCC's
character table would make 着. Without the fold, tokens are ``transformers``' exactly (where the fold gives a
character, they give [UNK]), and the evaluation and training commands read text that way.

BERT's family reads text its own way (``model.families``): RoBERTa by byte-level BPE, whose special tokens are
``<s>``, ``</s>``, ``<pad>``, ``<unk>`` and ``<mask>``; ALBERT by a SentencePiece Unigram model; DistilBERT and ELECTRA
by BERT's WordPiece. A checkpoint's ``tokenizer.json`` carries its pipeline, and its ``tokenizer_config.json`` (or
``special_tokens_map.json``) names its special tokens; RoBERTa's ``vocab.json`` and ``merges.txt`` serve where there is
no ``tokenizer.json``. The app writes a blank as ``[MASK]`` whatever the model: typed in a sentence, it is read as the
model's own mask token (RoBERTa's ``<mask>``, of the same length, so offsets still point into the text as typed).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import Encoding as _RawEncoding

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
ROLES = ("pad", "unk", "cls", "sep", "mask")  # what each of SPECIAL_TOKENS is, in order
ROBERTA_SPECIAL_TOKENS = ("<pad>", "<unk>", "<s>", "</s>", "<mask>")  # RoBERTa's, where its files name none
TYPED_MASK = "[MASK]"  # how a blank is written in the app, whatever the model's own mask token


@dataclass
class Encoding:
    """One tokenized input: parallel lists over the wordpieces, [CLS] and [SEP] included."""

    ids: list[int]
    tokens: list[str]
    token_type_ids: list[int]  # 0 for [CLS] A [SEP], 1 for B [SEP]
    offsets: list[tuple[int, int]]  # character span in its own sentence (A or B); (0, 0) for specials
    special: list[bool]  # True for [CLS], [SEP], [PAD]: never masked, often hidden in charts
    word_ids: list[int | None]  # which word a piece belongs to (token-level NER labels align on it)
    truncated: bool  # the input was longer than max_length and its end was cut off
    # Which text each token comes from: 0 for A, 1 for B, None for [CLS], [SEP] and the like. Unlike the segment ids
    # it tells B from A in every model, RoBERTa's (one segment) and DistilBERT's (none) too.
    sequence_ids: list[int | None] = field(default_factory=list)


class BertTokenizer:
    """A thin wrapper that returns plain lists and knows BERT's special tokens."""

    def __init__(self, tokenizer: Tokenizer, max_length: int = 512, special_tokens: dict[str, str] | None = None):
        """``special_tokens``: role (``ROLES``) -> the token that plays it, where a checkpoint names its own (RoBERTa's
        ``<s>`` for ``cls``); BERT's ``[CLS]`` and the rest otherwise."""
        self._tok = tokenizer
        self.max_length = max_length
        self._fold: dict[int, str] = {}  # Traditional -> Simplified, after fold_traditional()
        self.special_tokens = dict(zip(ROLES, SPECIAL_TOKENS)) | (special_tokens or {})
        missing = [t for t in self.special_tokens.values() if tokenizer.token_to_id(t) is None]
        if missing:
            raise ValueError(f"the vocabulary has no {', '.join(missing)} token")
        self.pad_token_id, self.unk_token_id, self.cls_token_id, self.sep_token_id, self.mask_token_id = (
            tokenizer.token_to_id(self.special_tokens[role]) for role in ROLES
        )
        mask = self.special_tokens["mask"]
        # A typed [MASK] is read as the model's mask token, where the two are as long (offsets stay as typed).
        self._typed_mask = mask if mask != TYPED_MASK and len(mask) == len(TYPED_MASK) else None
        self._frame_ids = frozenset((self.pad_token_id, self.cls_token_id, self.sep_token_id))
        # Byte-level BPE (RoBERTa's) writes each byte as a printable character: a Chinese character's three bytes
        # read "æĪĳ". Tokens are shown with those bytes decoded where they make text (``_shown``).
        self._byte_level = type(tokenizer.decoder).__name__ == "ByteLevel"
        self.special_ids = frozenset(
            (self.pad_token_id, self.unk_token_id, self.cls_token_id, self.sep_token_id, self.mask_token_id)
        )

    # construction ---------------------------------------------------------------------------------------

    @classmethod
    def from_vocab(
        cls,
        vocab: list[str],
        *,
        lowercase: bool = True,
        tokenize_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        max_length: int = 512,
    ) -> BertTokenizer:
        """Build BERT's pipeline from a vocabulary list (the lines of ``vocab.txt``)."""
        word_piece = models.WordPiece(
            {tok: i for i, tok in enumerate(vocab)}, unk_token="[UNK]", max_input_chars_per_word=100
        )
        tok = Tokenizer(word_piece)
        tok.normalizer = normalizers.BertNormalizer(
            clean_text=True,
            handle_chinese_chars=tokenize_chinese_chars,
            strip_accents=strip_accents,
            lowercase=lowercase,
        )
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        cls_id, sep_id = vocab.index("[CLS]"), vocab.index("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS]:0 $A:0 [SEP]:0",
            pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
        )
        tok.decoder = decoders.WordPiece(prefix="##")
        tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])
        return cls(tok, max_length)

    @classmethod
    def from_folder(cls, folder: str | Path, max_length: int = 512) -> BertTokenizer:
        """``tokenizer.json`` when present (it carries its own settings), else ``vocab.txt`` +
        ``tokenizer_config.json`` (``do_lower_case`` defaults to True, as in BERT's uncased release)."""
        folder = Path(folder)
        settings = {}
        config_path = folder / "tokenizer_config.json"
        if config_path.exists():
            try:
                settings = json.loads(config_path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                raise ValueError(f"{config_path}: not valid JSON ({e})") from None
        special = named_special_tokens(folder, settings)
        if (folder / "tokenizer.json").exists():
            path = folder / "tokenizer.json"
            try:
                tok = Tokenizer.from_file(str(path))
            except Exception as e:  # noqa: BLE001 - the tokenizers library raises a bare Exception on bad files
                raise ValueError(f"{path}: cannot be read as a tokenizer ({e})") from None
            tok.no_truncation()
            tok.no_padding()
            return cls(tok, max_length, special)
        if (folder / "vocab.json").exists() and (folder / "merges.txt").exists():
            special = dict(zip(ROLES, ROBERTA_SPECIAL_TOKENS)) | special
            return cls(byte_level_bpe(folder, special, settings), max_length, special)
        path = folder / "vocab.txt"
        if not path.exists():
            raise FileNotFoundError(f"{folder}: no tokenizer.json or vocab.txt")
        try:
            vocab = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text ({e})") from None
        return cls.from_vocab(
            [line.rstrip("\r") for line in vocab],
            lowercase=settings.get("do_lower_case", True),
            tokenize_chinese_chars=settings.get("tokenize_chinese_chars", True),
            strip_accents=settings.get("strip_accents"),
            max_length=max_length,
        )

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self._tok.save(str(folder / "tokenizer.json"))
        vocab = self.vocab()
        (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
        normalizer = json.loads(self._tok.to_str()).get("normalizer") or {}
        (folder / "tokenizer_config.json").write_text(
            json.dumps(
                {
                    "tokenizer_class": "BertTokenizer",
                    "do_lower_case": normalizer.get("lowercase", True),
                    "tokenize_chinese_chars": normalizer.get("handle_chinese_chars", True),
                    "strip_accents": normalizer.get("strip_accents"),
                    "model_max_length": self.max_length,
                    # A family's own special tokens (RoBERTa's <s> ...); BERT's are the defaults, left unwritten.
                    **{
                        f"{role}_token": token
                        for role, token in self.special_tokens.items()
                        if token != dict(zip(ROLES, SPECIAL_TOKENS))[role]
                    },
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )

    # use ------------------------------------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def vocab(self) -> list[str]:
        by_id = {i: t for t, i in self._tok.get_vocab(with_added_tokens=True).items()}
        # A vocab.txt with a repeated line leaves a hole in the ids; keep the ids where they are.
        return [by_id.get(i, f"[unused-id-{i}]") for i in range(max(by_id) + 1)]

    def id_to_token(self, token_id: int) -> str:
        """The token as a page shows it (a byte-level token's bytes decoded, ``_shown``)."""
        return self._shown(self._tok.id_to_token(token_id))

    def _shown(self, token: str | None) -> str | None:
        """A byte-level token with its bytes decoded as UTF-8, the leading "Ġ" (a space before it) kept, and a byte
        that is only part of a character written as ``\\xe6``: "Ġthe" stays, "æĪĳ" reads 我, and a character split
        over two tokens reads "\\xe6\\x88" and "\\x91". Other tokenizers' tokens, and special tokens, as they are."""
        if not self._byte_level or token is None or token.startswith("<"):
            return token
        space, body = ("Ġ", token[1:]) if token.startswith("Ġ") and len(token) > 1 else ("", token)
        if not all(char in _BYTE_OF_CHAR for char in body):  # an added token, written as itself
            return token
        return space + bytes(_BYTE_OF_CHAR[char] for char in body).decode("utf-8", errors="backslashreplace")

    def token_to_id(self, token: str) -> int | None:
        return self._tok.token_to_id(token)

    def encode(self, text: str, pair: str | None = None, max_length: int | None = None, keep_end: int = 0) -> Encoding:
        """Tokenize one text (or an A/B pair), truncating to ``max_length`` tokens, the longer side first.

        ``keep_end``: a single text that is too long keeps its last ``keep_end`` tokens as well as its start
        (head+tail truncation, Sun et al. 2019: a review's verdict is often in its last words).

        Truncation is done here rather than with ``enable_truncation`` because that setting lives on the
        shared tokenizer object, which several app sessions use at once.
        """
        # Never past the model's own limit, whatever a caller asks: RoBERTa's position table ends sooner than BERT's.
        limit = min(max_length or self.max_length, self.max_length)
        # [CLS] A [SEP] B [SEP] for BERT; RoBERTa's <s> A </s></s> B </s> takes one more.
        budget = limit - self._tok.num_special_tokens_to_add(is_pair=pair is not None)
        if budget < 1:
            raise ValueError(f"max_length {limit} leaves no room for text between [CLS] and [SEP]")
        text = self.folded(text)
        pair = self.folded(pair) if pair is not None else None
        first = self._tok.encode(text, add_special_tokens=False)
        second = self._tok.encode(pair, add_special_tokens=False) if pair is not None else None
        len_a, len_b = len(first.ids), len(second.ids) if second is not None else 0
        truncated = len_a + len_b > budget
        if truncated and second is None and keep_end:
            tail = self._tok.encode(text, add_special_tokens=False)
            tail.truncate(min(keep_end, budget - 1), direction="left")
            first.truncate(budget - len(tail.ids))
            first = _RawEncoding.merge([first, tail], growing_offsets=False)
        elif truncated:
            keep_a, keep_b = _longest_first(len_a, len_b, budget)
            first.truncate(keep_a)
            if second is not None:
                second.truncate(keep_b)
        enc = self._tok.post_process(first, second, add_special_tokens=True)
        offsets, sequence_ids = _own_spans(enc, [(first, text), (second, pair)])
        return Encoding(
            ids=list(enc.ids),
            tokens=[self._shown(token) for token in enc.tokens],
            token_type_ids=list(enc.type_ids),
            offsets=offsets,
            special=[i in self._frame_ids for i in enc.ids],
            word_ids=list(enc.word_ids),
            truncated=truncated,
            sequence_ids=sequence_ids,
        )

    def tokenize(self, text: str) -> list[str]:
        """Wordpieces of ``text`` alone, without [CLS]/[SEP] and without truncation."""
        return self._tok.encode(self.folded(text), add_special_tokens=False).tokens

    def fold_traditional(self, read_as_simplified: str = "") -> None:
        """From now on, read each Traditional character the vocabulary lacks, or that ``read_as_simplified``
        names, as its Simplified form where the vocabulary has that (the module's docstring says why only those)."""
        self._fold = _folds_for(self._tok, set(read_as_simplified))

    def folded(self, text: str) -> str:
        """``text`` as the model reads it: Traditional characters the vocabulary lacks in their Simplified form, and a
        typed ``[MASK]`` as the model's own mask token."""
        if self._typed_mask:
            text = text.replace(TYPED_MASK, self._typed_mask)
        return text.translate(self._fold) if self._fold else text

    def unknown_spans(self, text: str) -> list[str]:
        """The parts of ``text`` (within the first ``max_length`` tokens) that become [UNK], each once, in order:
        an emoji, a script the vocabulary never saw. A word with one unknown letter becomes [UNK] whole."""
        enc = self.encode(text)
        spans = (text[a:b] for token_id, (a, b) in zip(enc.ids, enc.offsets) if token_id == self.unk_token_id)
        return list(dict.fromkeys(span for span in spans if span))

    def decode(self, ids: list[int]) -> str:
        return self._tok.decode(ids, skip_special_tokens=False)


def _byte_characters() -> dict[str, int]:
    """Byte-level BPE's alphabet: the character that stands for each byte. Printable Latin-1 bytes stand for
    themselves; the others (controls, the space, the soft hyphen) take the characters from U+0100 on, in byte order,
    so that every byte is one visible character ("Ġ" is the space)."""
    visible = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in visible]
    return {chr(b): b for b in visible} | {chr(256 + n): b for n, b in enumerate(others)}


_BYTE_OF_CHAR = _byte_characters()


def _own_spans(
    enc: _RawEncoding, parts: list[tuple[_RawEncoding | None, str | None]]
) -> tuple[list[tuple[int, int]], list[int | None]]:
    """Each token's characters in its own text, without the space before it, and which text (0 or 1) it is from.

    The offsets come from each part's own encoding, not the post-processed one: RoBERTa's post-processor trims a
    leading space from offsets that its pre-tokenizer has already trimmed, and would cut a letter ("Ġthe" would
    point at "he"). ALBERT's "▁the" points at " the"; trimmed, it points at "the", as BERT's "the" does, so that
    masking a word keeps the space before it."""
    # The post-processor only adds special tokens around the parts: the others are the parts' own, in order.
    own = iter(
        (start, end, text, number)
        for number, (part, text) in enumerate(parts)
        if part is not None
        for start, end in part.offsets
    )
    offsets, sequence_ids = [], []
    for special in enc.special_tokens_mask:
        if special:  # [CLS], [SEP], <s>, </s>
            offsets.append((0, 0))
            sequence_ids.append(None)
            continue
        start, end, text, number = next(own)
        while start < end and text[start].isspace():
            start += 1
        offsets.append((start, end))
        sequence_ids.append(number)
    return offsets, sequence_ids


def named_special_tokens(folder: Path, settings: dict) -> dict[str, str]:
    """Role -> token for the special tokens a checkpoint names (``cls_token``, ``sep_token`` ... in
    ``tokenizer_config.json``, else ``special_tokens_map.json``), each a string or an ``AddedToken``'s dict."""
    named = dict(settings)
    map_path = folder / "special_tokens_map.json"
    if map_path.exists():
        try:
            named = json.loads(map_path.read_text(encoding="utf-8")) | named
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"{map_path}: not valid JSON ({e})") from None
    found = {}
    for role in ROLES:
        token = named.get(f"{role}_token")
        if isinstance(token, dict):
            token = token.get("content")
        if isinstance(token, str) and token:
            found[role] = token
    return found


def byte_level_bpe(folder: Path, roles: dict[str, str], settings: dict) -> Tokenizer:
    """RoBERTa's tokenizer from ``vocab.json`` and ``merges.txt``: byte-level BPE, ``<s> A </s></s> B </s>``, the
    special tokens ``roles`` names."""
    bpe = models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt"), unk_token=roles["unk"])
    tok = Tokenizer(bpe)
    prefix_space = bool(settings.get("add_prefix_space", False))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(
        (roles["sep"], tok.token_to_id(roles["sep"])),
        (roles["cls"], tok.token_to_id(roles["cls"])),
        add_prefix_space=prefix_space,
    )
    tok.add_special_tokens(
        [AddedToken(roles[role], special=True, lstrip=role == "mask", normalized=False) for role in ROLES]
    )
    return tok


@functools.cache
def traditional_to_simplified() -> dict[str, str]:
    """OpenCC's one-character Traditional -> Simplified table over the CJK blocks a vocabulary holds."""
    from opencc_purepy import OpenCC  # only a tokenizer that meets Chinese needs it: loaded on first use

    characters = [chr(code) for code in range(0x3400, 0xA000)]
    converted = OpenCC("t2s").convert("\n".join(characters)).split("\n")
    return {a: b for a, b in zip(characters, converted, strict=True) if a != b and len(b) == 1}


def _folds_for(tokenizer: Tokenizer, also: set[str]) -> dict[int, str]:
    """The fold for one vocabulary: each Traditional character it lacks, or in ``also``, -> its Simplified form,
    which it has."""
    vocab = tokenizer.get_vocab(with_added_tokens=False)
    if not any("\u3400" <= token[:1] <= "\u9fff" for token in vocab):
        return {}
    table = traditional_to_simplified()
    return {ord(a): b for a, b in table.items() if (a not in vocab or a in also) and b in vocab}


def _longest_first(len_a: int, len_b: int, budget: int) -> tuple[int, int]:
    """How many tokens of A and B to keep: shorten whichever is longer, one token at a time."""
    while len_a + len_b > budget:
        if len_a >= len_b:
            len_a -= 1
        else:
            len_b -= 1
    return len_a, len_b
