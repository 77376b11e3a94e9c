"""What the CLI and the pages ask of a loaded model: fill masks, attention maps, NSP, embedding parts, and
the pseudo-log-likelihood of whole sentences.

Each function takes a ``LoadedBert``, validates the text (raising ``InputError`` with a message fit for a
user), runs without gradients and returns plain Python and NumPy values. Most run one forward pass;
``fill_masks`` runs many texts in batches, ``fill_mask_iterative`` one pass per [MASK], and
``pseudo_log_likelihood`` one per token, batched.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

import torch

from .checkpoint import LoadedBert
from .modeling import BertModel
from .results import (
    AttentionResult,
    EmbeddingResult,
    FillMaskResult,
    FillStep,
    IterativeFillResult,
    LogitLensResult,
    MaskPredictions,
    NspResult,
    PllResult,
    Prediction,
    ReplacedTokensResult,
    TokenScore,
)
from .tokenization import Encoding

MAX_TOP_K = 100
MAX_INPUT_CHARS = 20_000  # beyond this we refuse rather than tokenize megabytes that will be cut anyway
# Pseudo-log-likelihood runs one copy of the sentence per token; copies go through the model in batches of
# at most this many tokens (copies x length), so a 512-token sentence needs a few batches, a short one one.
PLL_BATCH_TOKENS = 16_384
# fill_masks runs texts of similar length together: batches of at most this many tokens (texts x the longest),
# drawn from windows of this many texts sorted by length. On a CPU a batch of a few dozen short sentences
# runs several times faster per text than one sentence alone, and results come back window by window.
FILL_BATCH_TOKENS = 2048
FILL_WINDOW = 256
# Filling masks one at a time costs a forward pass per mask; past this many the wait is not worth it.
MAX_ITERATIVE_MASKS = 20


class InputError(ValueError):
    """The user's input cannot be used; the message says why in plain words.

    ``code`` names the problem and ``values`` its numbers, so a UI can say the same in another language.
    """

    def __init__(self, code: str, message: str, **values):
        super().__init__(message)
        self.code = code
        self.values = values


def check_text(text: str, part: str = "text") -> str:
    """``part`` is "text", or "first" / "second" for the sentences of a pair."""
    name = {"text": "text", "first": "first sentence", "second": "second sentence"}[part]
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"empty_{part}", f"The {name} is empty: type a sentence.")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(
            "too_long",
            f"The {name} has {len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}.",
            chars=len(text),
            limit=MAX_INPUT_CHARS,
        )
    return text


def encode(bundle: LoadedBert, text: str, pair: str | None = None) -> Encoding:
    check_text(text, "first" if pair is not None else "text")
    if pair is not None:
        check_text(pair, "second")
    enc = bundle.tokenizer.encode(text, pair)
    if len(enc.ids) <= (3 if pair is not None else 2):
        raise InputError(
            "nothing_left", "Nothing is left of the text after tokenization (only spaces or control characters?)."
        )
    return enc


def parse_heads(spec: str) -> list[tuple[int, int]]:
    """``"3.7,5.0"`` -> [(3, 7), (5, 0)]: 0-based layer.head pairs, as the CLI's ``--ablate`` takes them."""
    heads = []
    for part in spec.split(","):
        layer, dot, head = part.strip().partition(".")
        if not (dot and layer.isdigit() and head.isdigit()):
            raise InputError(
                "bad_head", f"{part.strip()!r} is not a head: write layer.head, 0-based, such as 3.7", head=part
            )
        heads.append((int(layer), int(head)))
    return heads


def head_mask_for(bundle: LoadedBert, removed: Sequence[tuple[int, int]]) -> torch.Tensor | None:
    """The model's (L, nh) head mask with 0 at each removed (layer, head); None when nothing is removed."""
    if not removed:
        return None
    L, nh = bundle.config.num_hidden_layers, bundle.config.num_attention_heads
    mask = torch.ones(L, nh)
    for layer, head in removed:
        if not (0 <= layer < L and 0 <= head < nh):
            raise InputError(
                "no_such_head",
                f"There is no head {layer}.{head}: this model has layers 0-{L - 1} and heads 0-{nh - 1}.",
                layer=layer,
                head=head,
                layers=L,
                heads=nh,
            )
        mask[layer, head] = 0.0
    return mask


def _tensors(enc: Encoding):
    ids = torch.tensor([enc.ids])
    types = torch.tensor([enc.token_type_ids])
    return ids, types


def pretraining_model(bundle: LoadedBert):
    """The model with its MLM and NSP heads; a fine-tuned classifier has neither, nor has ELECTRA's discriminator."""
    if bundle.is_discriminator:
        raise InputError(
            "discriminator_no_mlm",
            f"{bundle.name} is ELECTRA's discriminator: it has no masked-language-model head. It tells, for each "
            "token, whether the token was replaced (`python -m model replaced`).",
            name=bundle.name,
        )
    if not hasattr(bundle.model, "cls"):
        raise InputError(
            "no_mlm_head",
            f"{bundle.name} is a fine-tuned classifier: it has no masked-language-model head.",
            name=bundle.name,
        )
    return bundle.model


def _mask_positions(bundle: LoadedBert, text: str, enc: Encoding) -> list[int]:
    """Where the [MASK]s are; an InputError that says why when there is none the model can read."""
    positions = [i for i, t in enumerate(enc.ids) if t == bundle.tokenizer.mask_token_id]
    if not positions:
        if enc.truncated and "[MASK]" in text:
            limit = len(enc.ids)
            raise InputError(
                "mask_cut_off",
                f"Every [MASK] is past the model's {limit} tokens, which is all it reads: "
                "shorten the text or move the [MASK] forward.",
                limit=limit,
            )
        raise InputError("no_mask", "The text has no [MASK]: put [MASK] where a word should be predicted.")
    return positions


def _check_top_k(top_k) -> None:
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InputError("bad_top_k", f"top-k must be a whole number from 1 to {MAX_TOP_K}.", limit=MAX_TOP_K)


class _AttentionMaps(torch.nn.Module):
    """The encoder's forward pass that returns its attention maps, in the form that gets traced."""

    def __init__(self, bert: BertModel):
        super().__init__()
        self.bert = bert

    def forward(self, ids: torch.Tensor, types: torch.Tensor, causal: torch.Tensor) -> torch.Tensor:
        out = self.bert(ids, types, causal=causal, output_attentions=True)
        return torch.stack(out.attentions, dim=1)  # (B, L, nh, T, T)


class _MaskRows(torch.nn.Module):
    """The encoder's forward pass whose last layer computes only ``rows`` (what fill-mask reads), traced."""

    def __init__(self, bert: BertModel):
        super().__init__()
        self.bert = bert

    def forward(self, ids: torch.Tensor, types: torch.Tensor, causal: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        return self.bert(ids, types, causal=causal, last_layer_rows=rows).last_hidden_state  # (B, R, H)


_traced: weakref.WeakKeyDictionary[BertModel, dict[type, torch.jit.ScriptModule]] = weakref.WeakKeyDictionary()
_tracing = threading.Lock()


def _run_traced(form: type[torch.nn.Module], bert: BertModel, *inputs: torch.Tensor) -> torch.Tensor:
    """``form(bert)(*inputs)``, for an evaluation-mode encoder as one TorchScript graph, traced once per model and
    form (the same operators on the same weights: tests compare it with the module on many lengths).

    Why: eager PyTorch lets go of Python's interpreter lock for every operator and must take it back after, and
    while thirty students' page runs keep the interpreter busy, every take-back waits its turn. One forward pass
    that takes 11 ms alone took 796 ms beside four busy Python threads, the traced graph 46 ms
    (``bench/bench_contention.py``). A model in training mode (dropout) runs as it is. The traced forms take no
    padding mask and no head mask: the forward decides in Python whether a padding mask masks anything, which a
    trace would fix for good, so padded batches and removed heads run the module."""
    if bert.training:
        return form(bert)(*inputs)
    with _tracing:
        graphs = _traced.setdefault(bert, {})
        graph = graphs.get(form)
        if graph is None:
            with warnings.catch_warnings():
                # TorchScript is deprecated in favour of torch.compile and torch.export, but neither runs a graph
                # without the interpreter: compile needs a C++ toolchain and minutes, export's module runs op by op.
                warnings.simplefilter("ignore", DeprecationWarning)
                # The forward's length check (T <= max positions) is fixed at trace time; encode() truncates first.
                # Sizes are traced, not fixed: any batch size, length and number of rows runs.
                warnings.simplefilter("ignore", torch.jit.TracerWarning)
                graph = graphs[form] = torch.jit.trace(form(bert), inputs, check_trace=False)
    return graph(*inputs)


def _mask_probabilities(
    model,
    ids,
    types,
    positions: Sequence[Sequence[int]],
    causal: bool,
    head_mask: torch.Tensor | None = None,
    attention_mask: torch.Tensor | None = None,
) -> list[torch.Tensor]:
    """One forward pass over a batch (B, T); for each sequence, the vocabulary distribution at each of its
    ``positions``, (N_b, V) in float32. Only those rows reach the last layer's output and the MLM head."""
    counts = [len(p) for p in positions]
    R = max(counts)
    rows = torch.tensor([list(p) + [0] * (R - len(p)) for p in positions])  # (B, R): short lists padded with 0
    if head_mask is None and (attention_mask is None or bool(attention_mask.all())):
        hidden = _run_traced(_MaskRows, model.bert, ids, types, torch.full((ids.size(0),), causal), rows)
    else:
        hidden = model.bert(
            ids, types, attention_mask, causal=causal, last_layer_rows=rows, head_mask=head_mask
        ).last_hidden_state  # (B, R, H)
    wanted = torch.arange(R)[None] < torch.tensor(counts)[:, None]  # (B, R): the padding rows dropped
    probs = model.cls.predictions(hidden[wanted]).float().softmax(dim=-1)  # (sum N_b, V)
    return list(probs.split(counts))


def _top_predictions(bundle: LoadedBert, probs: torch.Tensor, top_k: int) -> list[list[Prediction]]:
    """The ``top_k`` most probable tokens of each row of ``probs`` (N, V), most probable first."""
    top = probs.topk(min(top_k, probs.size(-1)), dim=-1)
    return [
        [Prediction(bundle.tokenizer.id_to_token(int(i)), int(i), float(p)) for p, i in zip(values, indices)]
        for values, indices in zip(top.values, top.indices)
    ]


@torch.inference_mode()
def fill_mask(
    bundle: LoadedBert,
    text: str,
    *,
    top_k: int = 5,
    causal: bool = False,
    removed_heads: Sequence[tuple[int, int]] = (),
) -> FillMaskResult:
    """Top-k predictions for every [MASK]; ``causal`` lets each position see only itself and its left;
    ``removed_heads`` lists (layer, head) pairs switched off (see ``head_mask_for``).

    Every [MASK] is predicted from the same pass, so each guess sees the other masks still as [MASK]:
    the guesses are independent of one another (``fill_mask_iterative`` is the alternative)."""
    [result] = fill_masks(bundle, [text], top_k=top_k, causal=causal, removed_heads=removed_heads)
    return result


@torch.inference_mode()
def mask_token_probabilities(
    bundle: LoadedBert, text: str, token_ids: Sequence[int], *, removed_heads: Sequence[tuple[int, int]] = ()
) -> list[float]:
    """The probability of each of ``token_ids`` at the text's first [MASK], ``removed_heads`` switched off: what a
    comparison shows for a token that is in one top k and not in the other (its real probability, not 0)."""
    enc = encode(bundle, text)
    first = _mask_positions(bundle, text, enc)[:1]
    ids, types = _tensors(enc)
    [probs] = _mask_probabilities(
        pretraining_model(bundle), ids, types, [first], False, head_mask_for(bundle, removed_heads)
    )
    return [float(probs[0, i]) for i in token_ids]


@torch.inference_mode()
def fill_masks(
    bundle: LoadedBert,
    texts: Iterable[str],
    *,
    top_k: int = 5,
    causal: bool = False,
    removed_heads: Sequence[tuple[int, int]] = (),
) -> Iterator[FillMaskResult]:
    """``fill_mask`` of each text, in the texts' order, with texts of similar length run through the model
    together (padded to the longest of their batch, the padding masked out); see ``FILL_BATCH_TOKENS``.

    Results equal ``fill_mask``'s to float rounding (a batch's matrix products round in their own order).
    A text that cannot be used raises its ``InputError`` once the results of the texts before it are out."""
    _check_top_k(top_k)
    model = pretraining_model(bundle)
    head_mask = head_mask_for(bundle, removed_heads)
    remaining = iter(texts)
    while window := list(islice(remaining, FILL_WINDOW)):
        ready, error = [], None
        for text in window:
            try:
                enc = encode(bundle, text)
                ready.append((text, enc, _mask_positions(bundle, text, enc)))
            except InputError as e:
                error = e
                break
        results = [None] * len(ready)
        for batch in _length_batches([len(enc.ids) for _, enc, _ in ready]):
            encodings = [ready[i][1] for i in batch]
            positions = [ready[i][2] for i in batch]
            ids, types, attention_mask = _padded(bundle, encodings)
            probs = _mask_probabilities(model, ids, types, positions, causal, head_mask, attention_mask)
            for i, enc, where, p in zip(batch, encodings, positions, probs):
                masks = [MaskPredictions(pos, preds) for pos, preds in zip(where, _top_predictions(bundle, p, top_k))]
                results[i] = FillMaskResult(ready[i][0], enc.tokens, enc.special, masks, enc.truncated)
        yield from results
        if error is not None:
            raise error


def word_token(bundle: LoadedBert, word: str) -> Prediction:
    """The one vocabulary token ``word`` is for this model (prob 0: not a prediction); an InputError when it is
    none, or several pieces (a lens follows one token)."""
    pieces = bundle.tokenizer.encode(word.strip()[:100]).ids[1:-1]  # without [CLS] and [SEP]
    if len(pieces) != 1 or pieces[0] == bundle.tokenizer.unk_token_id:
        tokens = " ".join(bundle.tokenizer.id_to_token(i) for i in pieces)
        raise InputError(
            "word_pieces",
            f"{word!r} is not one token for this model ({tokens}): name a single token, such as one of these.",
            word=word,
            tokens=tokens,
        )
    return Prediction(bundle.tokenizer.id_to_token(pieces[0]), pieces[0], 0.0)


@torch.inference_mode()
def logit_lens(bundle: LoadedBert, text: str, *, top_k: int = 3, word: str | None = None) -> LogitLensResult:
    """What the model would answer at the first [MASK] if it stopped after each layer: the MLM head (its transform
    and LayerNorm, then the tied word embeddings) applied to that position's hidden state after the embeddings and
    after every layer; and, where a ``word`` is named, its probability and rank at each. The head was trained on the
    last layer only, so early layers' answers show what their vectors already hold in the words' own space, not a
    prediction the model makes."""
    _check_top_k(top_k)
    followed = word_token(bundle, word) if word else None
    model = pretraining_model(bundle)
    enc = encode(bundle, text)
    index = _mask_positions(bundle, text, enc)[0]
    ids, types = _tensors(enc)
    hidden = model.bert(ids, types, output_hidden_states=True).hidden_states  # L + 1 of (1, T, H)
    rows = torch.stack([h[0, index] for h in hidden])  # (L + 1, H)
    probs = model.cls.predictions(rows).float().softmax(dim=-1)  # (L + 1, V)

    def track(token_id: int) -> tuple[list[float], list[int]]:
        column = probs[:, token_id]  # (L + 1,)
        return column.tolist(), ((probs > column[:, None]).sum(dim=-1) + 1).tolist()

    layers = _top_predictions(bundle, probs, top_k)
    answer = layers[-1][0]
    word_probs, word_ranks = track(followed.id) if followed else (None, None)
    if followed:
        followed = Prediction(followed.token, followed.id, word_probs[-1])
    return LogitLensResult(text, enc.tokens, index, layers, answer, *track(answer.id), followed, word_probs, word_ranks)


def _length_batches(lengths: list[int]) -> list[list[int]]:
    """Indices into ``lengths``, shortest first, cut into batches of at most ``FILL_BATCH_TOKENS`` padded tokens."""
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if batch and (len(batch) + 1) * lengths[i] > FILL_BATCH_TOKENS:  # sorted: this one is the longest yet
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def _padded(bundle: LoadedBert, encodings: Sequence[Encoding]):
    """Ids, segment ids and the attention mask (1 = real token) of a batch, padded on the right; the mask is
    None when every sequence has the same length, so a batch of one runs exactly as ``_tensors``' input."""
    T = max(len(enc.ids) for enc in encodings)
    pad = bundle.tokenizer.pad_token_id
    ids = torch.tensor([enc.ids + [pad] * (T - len(enc.ids)) for enc in encodings])
    types = torch.tensor([enc.token_type_ids + [0] * (T - len(enc.ids)) for enc in encodings])
    if all(len(enc.ids) == T for enc in encodings):
        return ids, types, None
    attention_mask = torch.tensor([[1] * len(enc.ids) + [0] * (T - len(enc.ids)) for enc in encodings])
    return ids, types, attention_mask


@torch.inference_mode()
def fill_mask_iterative(
    bundle: LoadedBert,
    text: str,
    *,
    top_k: int = 5,
    causal: bool = False,
    removed_heads: Sequence[tuple[int, int]] = (),
) -> IterativeFillResult:
    """Fill the [MASK]s one at a time: predict all, write the most confident one's best token into the
    sentence, predict again, until none is left. One forward pass per [MASK].

    Confidence is the probability of the token that would be written; a special token ([MASK], [SEP] ...) is
    never written, so the sentence really ends without masks. Equal confidences go to the leftmost mask.
    The first pass is exactly ``fill_mask``'s, so with a single [MASK] the two agree."""
    _check_top_k(top_k)
    model = pretraining_model(bundle)
    head_mask = head_mask_for(bundle, removed_heads)
    enc = encode(bundle, text)
    remaining = _mask_positions(bundle, text, enc)
    if len(remaining) > MAX_ITERATIVE_MASKS:
        raise InputError(
            "too_many_masks",
            f"The text has {len(remaining)} [MASK]s; filling them one at a time is limited to {MAX_ITERATIVE_MASKS}.",
            count=len(remaining),
            limit=MAX_ITERATIVE_MASKS,
        )
    ids, types = _tensors(enc)
    tokens = list(enc.tokens)
    never_written = torch.tensor(sorted(bundle.tokenizer.special_ids))
    steps = []
    while remaining:
        [probs] = _mask_probabilities(model, ids, types, [remaining], causal, head_mask)  # (N, V)
        writable = probs.clone()
        writable[:, never_written] = -1.0
        best_prob, best_id = writable.max(dim=-1)  # (N,) each
        row = int(best_prob.argmax())  # the first maximum: the leftmost of equally confident masks
        position, token_id = remaining[row], int(best_id[row])
        chosen = Prediction(bundle.tokenizer.id_to_token(token_id), token_id, float(best_prob[row]))
        steps.append(FillStep(position, chosen, _top_predictions(bundle, probs[row : row + 1], top_k)[0]))
        ids[0, position] = token_id
        tokens[position] = chosen.token
        del remaining[row]
    filled_text = fill_in(text, enc.offsets, {step.index: step.chosen.token for step in steps})
    return IterativeFillResult(text, enc.tokens, enc.special, steps, tokens, filled_text, enc.truncated)


def fill_in(text: str, offsets: list[tuple[int, int]], tokens: dict[int, str]) -> str:
    """``text`` with the wordpiece at each position of ``tokens`` (its [MASK]s) replaced by the given token,
    found by the encoding's character ``offsets``; a continuation piece loses its "##"."""
    for position in sorted(tokens, reverse=True):  # from the right, so earlier offsets stay valid
        start, end = offsets[position]
        text = text[:start] + tokens[position].removeprefix("##") + text[end:]
    return text


@torch.inference_mode()
def pseudo_log_likelihood(bundle: LoadedBert, text: str) -> PllResult:
    """How natural the model finds a whole sentence (Salazar et al. 2020, "Masked Language Model Scoring").

    Each wordpiece in turn is replaced by [MASK] and the model's natural-log probability of the true piece
    there is read; the score is their sum ([CLS] and [SEP] are not scored). That is one forward pass per
    wordpiece: the masked copies of the sentence run together, ``PLL_BATCH_TOKENS`` tokens per batch."""
    model = pretraining_model(bundle)
    enc = encode(bundle, text)
    if bundle.tokenizer.mask_token_id in enc.ids:
        raise InputError(
            "mask_in_score", "Scoring needs a whole sentence: replace every [MASK] with the word you mean."
        )
    ids, types = _tensors(enc)  # (1, T)
    T = ids.size(1)
    scored = torch.arange(1, T - 1)  # every position but [CLS] and [SEP]
    per_batch = max(1, PLL_BATCH_TOKENS // T)
    log_probs = []
    for chunk in scored.split(per_batch):
        n = chunk.numel()
        copies = ids.repeat(n, 1)  # (n, T): copy j masks position chunk[j]
        rows = torch.arange(n)
        copies[rows, chunk] = bundle.tokenizer.mask_token_id
        hidden = model.bert(copies, types.expand(n, T)).last_hidden_state[rows, chunk]  # (n, H)
        logits = model.cls.predictions(hidden).float()  # (n, V)
        log_probs.append(logits.log_softmax(dim=-1)[rows, ids[0, chunk]])  # (n,)
    values = torch.cat(log_probs).tolist()
    tokens = [TokenScore(enc.tokens[i], value) for i, value in zip(scored.tolist(), values)]
    return PllResult(text, sum(values), tokens, enc.truncated)


def _attention_results(
    bundle: LoadedBert, text: str, pair: str | None, causal: Sequence[bool]
) -> list[AttentionResult]:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    flags = torch.tensor(list(causal))
    maps = _run_traced(
        _AttentionMaps, bundle.model.bert, ids.expand(len(flags), -1), types.expand(len(flags), -1), flags
    )
    maps = maps.float().numpy()  # (B, L, nh, T, T)
    return [AttentionResult(enc.tokens, enc.token_type_ids, enc.special, m, enc.truncated) for m in maps]


@torch.inference_mode()
def attention_maps(bundle: LoadedBert, text: str, pair: str | None = None, *, causal: bool = False) -> AttentionResult:
    return _attention_results(bundle, text, pair, [causal])[0]


@torch.inference_mode()
def attention_maps_both(
    bundle: LoadedBert, text: str, pair: str | None = None
) -> tuple[AttentionResult, AttentionResult]:
    """The bidirectional and the causal maps of one text, from one batch of two: BERT's reading and GPT's."""
    return tuple(_attention_results(bundle, text, pair, [False, True]))


@torch.inference_mode()
def next_sentence(
    bundle: LoadedBert, first: str, second: str, *, removed_heads: Sequence[tuple[int, int]] = ()
) -> NspResult:
    model = pretraining_model(bundle)
    head_mask = head_mask_for(bundle, removed_heads)
    enc = encode(bundle, first, second)
    ids, types = _tensors(enc)
    out = model(ids, types, mlm_positions=torch.zeros_like(ids, dtype=torch.bool), head_mask=head_mask)
    is_next = float(out.nsp_logits.float().softmax(dim=-1)[0, 0])  # index 0 = IsNext
    return NspResult(enc.tokens, enc.token_type_ids, enc.special, is_next, enc.truncated)


@torch.inference_mode()
def replaced_tokens(bundle: LoadedBert, text: str) -> ReplacedTokensResult:
    """ELECTRA's discriminator on ``text``: P(replaced) for each token, from one forward pass."""
    if not bundle.is_discriminator:
        raise InputError(
            "not_discriminator",
            f"{bundle.name} is not an ELECTRA discriminator: only a discriminator says which tokens were replaced.",
            name=bundle.name,
        )
    enc = encode(bundle, text)
    ids, types = _tensors(enc)
    replaced = bundle.model(ids, types).logits[0].float().sigmoid()  # (T,)
    return ReplacedTokensResult(enc.tokens, enc.offsets, enc.special, replaced.tolist(), enc.truncated)


@torch.inference_mode()
def embedding_parts(bundle: LoadedBert, text: str, pair: str | None = None) -> EmbeddingResult:
    enc = encode(bundle, text, pair)
    ids, types = _tensors(enc)
    _, parts = bundle.model.bert.embeddings(ids, types, return_parts=True)
    arrays = [t[0].float().numpy() for t in (parts.token, parts.segment, parts.position, parts.sum, parts.normalized)]
    return EmbeddingResult(enc.tokens, enc.token_type_ids, enc.special, *arrays, enc.truncated)
