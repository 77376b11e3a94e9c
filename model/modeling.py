"""A compact BERT in plain PyTorch.

Devlin et al. 2018, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding".
Token + segment + position embeddings summed (§3.2), a stack of bidirectional Transformer encoder layers, an MLM head and an NSP head.

Module and attribute names are the Hugging Face checkpoint keys (``bert.embeddings.word_embeddings``,
``bert.encoder.layer.0.attention.self.query``, ``cls.predictions.transform.LayerNorm`` ...), so loading a
real checkpoint is a strict ``load_state_dict`` after the small rename in ``model.checkpoint``.
Even ``LayerNorm`` keeps its un-snake-cased name for that reason.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class BertConfig:
    """Hyper-parameters, with Hugging Face's field names so ``config.json`` files read and write as is."""

    vocab_size: int = 30522  # WordPiece vocabulary of bert-base-uncased
    hidden_size: int = 768  # width of every token vector (H in the paper)
    num_hidden_layers: int = 12  # encoder layers (L)
    num_attention_heads: int = 12  # heads per layer (A); hidden_size must divide evenly
    intermediate_size: int = 3072  # feed-forward width, 4H
    hidden_act: str = "gelu"  # exact (erf) GELU, as the original
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512  # longest input the position table covers
    type_vocab_size: int = 2  # segments A and B
    initializer_range: float = 0.02  # std of the truncated-normal-like init
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0
    # RoBERTa's positions (BERT's family, ``model.families``): a real token's position counts from pad_token_id + 1
    # and padding sits at pad_token_id, so the table's first rows are never a real token's.
    positions_after_padding: bool = False
    # ALBERT's and ELECTRA's factorized embeddings: token vectors this wide (E), projected to hidden_size before the
    # first layer (None: as wide as the layers, BERT's way).
    embedding_size: int | None = None
    # ALBERT's one set of layer weights, used by every layer in turn.
    share_layers: bool = False
    # Which head an extra classification layer serves; only fine-tuned checkpoints carry them.
    num_labels: int = 2
    id2label: dict[str, str] | None = None
    extra: dict = field(default_factory=dict, repr=False)  # unknown config.json keys, written back on save

    def __post_init__(self) -> None:
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"hidden_size {self.hidden_size} is not a multiple of num_attention_heads {self.num_attention_heads}"
            )
        if self.type_vocab_size < 0:
            raise ValueError(f"type_vocab_size {self.type_vocab_size} is negative")
        if self.hidden_act not in ACT2FN:
            raise ValueError(f"hidden_act {self.hidden_act!r} is not supported (use one of {sorted(ACT2FN)})")

    @classmethod
    def from_dict(cls, data: dict) -> BertConfig:
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["extra"] = {k: v for k, v in data.items() if k not in known and k != "model_type"}
        if kwargs.get("id2label") is not None:
            kwargs["id2label"] = {str(k): str(v) for k, v in kwargs["id2label"].items()}
            kwargs.setdefault("num_labels", len(kwargs["id2label"]))
        return cls(**kwargs)

    @classmethod
    def from_json_file(cls, path: str | Path) -> BertConfig:
        with open(path, encoding="utf-8") as f:
            return cls.from_dict(json.load(f))

    def to_dict(self) -> dict:
        data = {k: v for k, v in dataclasses.asdict(self).items() if k != "extra"}
        if data["id2label"] is None:
            del data["id2label"]
        for name, default in (("positions_after_padding", False), ("embedding_size", None), ("share_layers", False)):
            if data[name] == default:  # BERT's own configs stay as Hugging Face writes them
                del data[name]
        return {"model_type": "bert", **self.extra, **data}

    def to_json_file(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def embedding_width(self) -> int:
        """E: how wide a token's embedding is (the hidden size, unless the embeddings are factorized)."""
        return self.embedding_size or self.hidden_size


def bert_base() -> BertConfig:
    """BERT-Base from the paper: L=12, H=768, A=12 (about 110M parameters)."""
    return BertConfig(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072)


def bert_large() -> BertConfig:
    """BERT-Large from the paper: L=24, H=1024, A=16 (about 340M parameters)."""
    return BertConfig(num_hidden_layers=24, hidden_size=1024, num_attention_heads=16, intermediate_size=4096)


def albert_base() -> BertConfig:
    """ALBERT-Base from its paper (albert-base-v2's config.json): BERT-Base's layers, 128-wide token vectors, one set
    of layer weights shared by all twelve, a 30,000-piece vocabulary (about 12M parameters)."""
    return dataclasses.replace(bert_base(), vocab_size=30000, embedding_size=128, share_layers=True)


PRESETS = {"bert-base": bert_base, "bert-large": bert_large}


def count_parameters(config: BertConfig) -> dict[str, int]:
    """Parameter counts by part, computed from the config alone (no weights are allocated).

    The MLM decoder shares its matrix with the word embeddings, so only its transform and bias count.
    """
    H, I, V, L = config.hidden_size, config.intermediate_size, config.vocab_size, config.num_hidden_layers
    E = config.embedding_width
    layer_norm = 2 * H
    embeddings = (V + config.max_position_embeddings + config.type_vocab_size) * E + 2 * E
    if E != H:
        embeddings += E * H + H  # the projection to the layers' width
    attention = 4 * (H * H + H) + layer_norm  # query, key, value, output projection
    feed_forward = (H * I + I) + (I * H + H) + layer_norm
    encoder = (1 if config.share_layers else L) * (attention + feed_forward)
    pooler = H * H + H
    mlm_head = (H * E + E) + 2 * E + V  # transform + LayerNorm + output bias (decoder tied)
    nsp_head = 2 * H + 2
    return {
        "embeddings": embeddings,
        "encoder": encoder,
        "pooler": pooler,
        "mlm_head": mlm_head,
        "nsp_head": nsp_head,
        "total": embeddings + encoder + pooler + mlm_head + nsp_head,
    }


ACT2FN = {
    "gelu": nn.GELU(),
    "gelu_new": nn.GELU(approximate="tanh"),
    "gelu_pytorch_tanh": nn.GELU(approximate="tanh"),
    "relu": nn.ReLU(),
}


def make_attention_mask(
    attention_mask: torch.Tensor | None, seq_len: int, causal: bool | torch.Tensor, device
) -> torch.Tensor | None:
    """The one place that decides who may attend to whom: a boolean (B, 1, T, T) mask, True = may attend.

    ``attention_mask`` is the usual (B, T) 1/0 padding mask. Causal masking lets position i see
    positions <= i only, which is how a left-to-right model such as GPT reads. ``causal`` is one flag for the
    batch, or a (B,) boolean tensor, a flag per sequence: one batch then reads a text both ways.
    Returns None when every position may see every other, so the fast path stays unmasked.
    """
    mask = None
    if attention_mask is not None and not bool(attention_mask.all()):
        mask = attention_mask[:, None, None, :].bool()  # (B, 1, 1, T): keys that exist
    per_sequence = isinstance(causal, torch.Tensor)
    if per_sequence or causal:
        tril = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()[None, None]  # (1, 1, T, T)
        if per_sequence:
            tril = tril | ~causal.to(device=device, dtype=torch.bool).view(-1, 1, 1, 1)  # (B, 1, T, T)
        mask = tril if mask is None else mask & tril
    if mask is not None:
        mask = mask.expand(-1, -1, seq_len, -1)  # (B, 1, T, T)
    return mask


def take_rows(x: torch.Tensor, rows: torch.Tensor | None, dim: int = 1) -> torch.Tensor:
    """``x``'s entries at the positions ``rows`` along ``dim``: all of them when ``rows`` is None, the same
    positions in every sequence when it is 1-D (R,), each sequence's own when it is (B, R)."""
    if rows is None:
        return x
    if rows.dim() == 1:
        return x.index_select(dim, rows)
    B, R = rows.shape
    x = x.expand(B, *x.shape[1:])  # a mask shared by the batch, (1, ...), gets a row per sequence
    index = rows.view(B, *[1] * (dim - 1), R, *[1] * (x.dim() - dim - 1))
    return x.gather(dim, index.expand(*x.shape[:dim], R, *x.shape[dim + 1 :]))


@dataclass
class EmbeddingParts:
    """The input representation taken apart, each (B, T, H): what the embeddings page draws."""

    token: torch.Tensor
    segment: torch.Tensor
    position: torch.Tensor
    sum: torch.Tensor
    normalized: torch.Tensor


@dataclass
class BertOutput:
    """What a forward pass returns; fields that were not asked for stay None."""

    last_hidden_state: torch.Tensor  # (B, T, H)
    pooled: torch.Tensor | None = None  # (B, H): tanh(W [CLS])
    mlm_logits: torch.Tensor | None = None  # (B, T, V), or (N, V) at the selected positions only
    nsp_logits: torch.Tensor | None = None  # (B, 2): index 0 = IsNext, 1 = NotNext (HF convention)
    logits: torch.Tensor | None = None  # task head: (B, num_labels) or (B, T, num_labels)
    loss: torch.Tensor | None = None
    attentions: list[torch.Tensor] | None = None  # per layer (B, nh, T, T)
    hidden_states: list[torch.Tensor] | None = None  # embeddings output, then every layer's, (B, T, H)
    embeddings: EmbeddingParts | None = None


class BertEmbeddings(nn.Module):
    """Token + segment + position embeddings, summed, then LayerNorm and dropout.

    A model without segments (DistilBERT: ``type_vocab_size`` 0) has no segment table, and its segment part is 0."""

    def __init__(self, config: BertConfig):
        super().__init__()
        E = config.embedding_width
        self.word_embeddings = nn.Embedding(config.vocab_size, E, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, E)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, E) if config.type_vocab_size else None
        self.LayerNorm = nn.LayerNorm(E, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.pad_token_id = config.pad_token_id
        self.positions_after_padding = config.positions_after_padding

    def position_ids(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(1, T) 0, 1, 2 ... as BERT counts; or (B, T) RoBERTa's: real tokens from pad_token_id + 1 on, padding at
        pad_token_id."""
        if not self.positions_after_padding:
            return torch.arange(input_ids.size(1), device=input_ids.device)[None]
        real = input_ids.ne(self.pad_token_id).long()
        return real.cumsum(dim=1) * real + self.pad_token_id

    def forward(self, input_ids, token_type_ids, return_parts: bool = False, inputs_embeds=None):
        token = self.word_embeddings(input_ids) if inputs_embeds is None else inputs_embeds  # (B, T, H)
        if self.token_type_embeddings is not None:
            segment = self.token_type_embeddings(token_type_ids)  # (B, T, H)
        else:
            segment = torch.zeros_like(token)
        position = self.position_embeddings(self.position_ids(input_ids))  # (1 or B, T, H)
        summed = token + segment + position
        normalized = self.LayerNorm(summed)
        parts = None
        if return_parts:
            parts = EmbeddingParts(token, segment, position.expand_as(token), summed, normalized)
        return self.dropout(normalized), parts


class BertSelfAttention(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_size = config.head_size
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout_p = config.attention_probs_dropout_prob
        self.dropout = nn.Dropout(self.dropout_p)

    def forward(self, x, mask, return_attention: bool, rows=None, head_mask=None):
        """``head_mask`` (nh,) or (B, nh): multiplies each head's context vector before the output projection;
        0 removes the head (Michel et al. 2019's gate), and a tensor that requires grad gives the gate's gradient."""
        B, T, H = x.shape
        queries = take_rows(x, rows)  # (B, Tq, H): every position, or only those still needed
        Tq = queries.size(1)
        if mask is not None:
            mask = take_rows(mask, rows, dim=2)  # (B, 1, Tq, T)
        # (B, T, H) -> (B, nh, T, hs)
        q = self.query(queries).view(B, Tq, self.num_heads, self.head_size).transpose(1, 2)
        k = self.key(x).view(B, T, self.num_heads, self.head_size).transpose(1, 2)
        v = self.value(x).view(B, T, self.num_heads, self.head_size).transpose(1, 2)
        if return_attention:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_size)  # (B, nh, Tq, T)
            if mask is not None:
                # finfo.min rather than -inf: a row with no visible key stays finite instead of NaN.
                scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
            probs = scores.softmax(dim=-1)
            y = self.dropout(probs) @ v  # (B, nh, T, hs)
        else:
            probs = None
            y = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=self.dropout_p if self.training else 0.0
            )  # (B, nh, Tq, hs)
        if head_mask is not None:
            y = y * head_mask.to(y.dtype).view(-1, self.num_heads, 1, 1)  # (B, nh, Tq, hs), removed heads all zero
        y = y.transpose(1, 2).reshape(B, Tq, H)  # (B, Tq, H)
        return y, probs


class BertSelfOutput(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, y, residual):
        return self.LayerNorm(self.dropout(self.dense(y)) + residual)


class BertAttention(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, x, mask, return_attention, rows=None, head_mask=None):
        y, probs = self.self(x, mask, return_attention, rows, head_mask)
        return self.output(y, take_rows(x, rows)), probs


class BertIntermediate(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = ACT2FN[config.hidden_act]

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class BertOutputLayer(nn.Module):
    """The feed-forward's second projection; HF calls this module ``output`` (class BertOutput)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, h, residual):
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


class BertLayer(nn.Module):
    """One post-LayerNorm Transformer encoder block: attention, then feed-forward, each with a residual."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutputLayer(config)

    def forward(self, x, mask, return_attention, rows=None, head_mask=None):
        """``rows`` ((R,) positions, or (B, R) for each sequence its own): compute the output only there; keys and
        values still come from all."""
        x, probs = self.attention(x, mask, return_attention, rows, head_mask)
        return self.output(self.intermediate(x), x), probs


class BertEncoder(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        if config.share_layers:  # ALBERT: one block, met once per layer (its weights under every layer's name)
            self.layer = nn.ModuleList([BertLayer(config)] * config.num_hidden_layers)
        else:
            self.layer = nn.ModuleList(BertLayer(config) for _ in range(config.num_hidden_layers))


class BertPooler(nn.Module):
    """tanh(W h_[CLS]): the sentence representation the NSP and classification heads read."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden):
        return self.activation(self.dense(hidden[:, 0]))


class BertModel(nn.Module):
    """Embeddings, encoder and pooler: the part every head shares (checkpoint prefix ``bert.``)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        # Factorized embeddings (ALBERT, ELECTRA) are projected to the layers' width; BERT's need no projection.
        self.embeddings_project = (
            nn.Linear(config.embedding_width, config.hidden_size)
            if config.embedding_width != config.hidden_size
            else None
        )
        self.encoder = BertEncoder(config)
        self.pooler = BertPooler(config)

    def forward(
        self,
        input_ids: torch.Tensor,  # (B, T)
        token_type_ids: torch.Tensor | None = None,  # (B, T), 0 for segment A, 1 for B
        attention_mask: torch.Tensor | None = None,  # (B, T), 1 for real tokens, 0 for padding
        *,
        causal: bool | torch.Tensor = False,  # or (B,): a flag per sequence
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        output_embeddings: bool = False,
        last_layer_rows: torch.Tensor | None = None,
        head_mask: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
    ) -> BertOutput:
        """``last_layer_rows`` ((R,) positions, the same for every sequence, or (B, R), each sequence's own): the
        last layer computes only these positions, since nothing reads the others (fill-mask needs the [MASK]s
        alone). The last hidden state is then (B, R, H), one row per entry, and there is no pooled output.

        ``head_mask`` (L, nh), 1 = keep, 0 = remove: scales each head's context vector before the layer's
        output projection, as Hugging Face's ``head_mask`` does. None leaves the computation untouched.
        (B, L, nh) gives every sequence its own mask: one gate per sequence, for per-sequence gradients.

        ``inputs_embeds`` (B, T, H): the word embeddings of ``input_ids``, given instead of looked up, as in Hugging
        Face. A gradient with respect to the input (gradient × input) passes a leaf here, so nothing is hooked
        into a model that other threads run at the same time."""
        B, T = input_ids.shape
        if last_layer_rows is not None and (output_attentions or output_hidden_states):
            raise ValueError("last_layer_rows cannot be combined with attention maps or hidden states")
        if T > self.config.max_position_embeddings:
            raise ValueError(f"sequence of {T} tokens is longer than the model's {self.config.max_position_embeddings}")
        heads = (len(self.encoder.layer), self.config.num_attention_heads)
        if head_mask is not None and tuple(head_mask.shape) not in (heads, (B, *heads)):
            raise ValueError(f"head_mask has shape {tuple(head_mask.shape)}; the model needs {heads} or (B, *{heads})")
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        if inputs_embeds is not None and inputs_embeds.shape[:2] != input_ids.shape:
            raise ValueError(
                f"inputs_embeds has shape {tuple(inputs_embeds.shape)}; input_ids {tuple(input_ids.shape)}"
            )
        x, parts = self.embeddings(
            input_ids, token_type_ids, return_parts=output_embeddings, inputs_embeds=inputs_embeds
        )
        if self.embeddings_project is not None:
            x = self.embeddings_project(x)  # (B, T, E) -> (B, T, H)
        mask = make_attention_mask(attention_mask, T, causal, input_ids.device)
        attentions = [] if output_attentions else None
        hidden_states = [x] if output_hidden_states else None
        last = len(self.encoder.layer) - 1
        for i, layer in enumerate(self.encoder.layer):
            rows = last_layer_rows if i == last else None
            x, probs = layer(x, mask, output_attentions, rows, None if head_mask is None else head_mask[..., i, :])
            if output_attentions:
                attentions.append(probs)
            if output_hidden_states:
                hidden_states.append(x)
        return BertOutput(
            last_hidden_state=x,
            pooled=self.pooler(x) if last_layer_rows is None else None,
            attentions=attentions,
            hidden_states=hidden_states,
            embeddings=parts,
        )


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.embedding_width)  # back to the embeddings' width
        self.transform_act_fn = ACT2FN[config.hidden_act]
        self.LayerNorm = nn.LayerNorm(config.embedding_width, eps=config.layer_norm_eps)

    def forward(self, x):
        return self.LayerNorm(self.transform_act_fn(self.dense(x)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        self.decoder = nn.Linear(config.embedding_width, config.vocab_size, bias=False)  # weight tied in init
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, x):
        return self.decoder(self.transform(x)) + self.bias


class BertPreTrainingHeads(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.predictions = BertLMPredictionHead(config)
        self.seq_relationship = nn.Linear(config.hidden_size, 2)


class BertPreTrainedBase(nn.Module):
    """Shared init: every Linear and Embedding ~ N(0, initializer_range), biases 0, LayerNorm (1, 0).

    Weight tying happens here too (``tie_weights``), so a subclass never ties on its own.
    """

    config: BertConfig

    def _init_module(self, module: nn.Module, generator: torch.Generator | None = None) -> None:
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std, generator=generator)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std, generator=generator)
            if module.padding_idx is not None:
                with torch.no_grad():
                    module.weight[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def init_weights(self, generator: torch.Generator | None = None) -> None:
        """``generator``: draw from it rather than torch's global generator, which every thread of a server shares."""
        self.apply(lambda module: self._init_module(module, generator))
        self.tie_weights()

    def tie_weights(self) -> None:
        pass

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())  # tied tensors are yielded once


class BertForPreTraining(BertPreTrainedBase):
    """BERT with its two pre-training heads: masked-language-model and next-sentence prediction."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.cls = BertPreTrainingHeads(config)
        self.init_weights()

    def tie_weights(self) -> None:
        # The MLM decoder reuses the input embedding matrix: one vocabulary table read both ways.
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def forward(
        self,
        input_ids: torch.Tensor,  # (B, T)
        token_type_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        *,
        mlm_positions: torch.Tensor | None = None,  # bool (B, T): compute the MLM head here only
        mlm_labels: torch.Tensor | None = None,  # (B, T), -100 where no loss
        nsp_labels: torch.Tensor | None = None,  # (B,), 0 = IsNext, 1 = NotNext, -100 = no label
        causal: bool = False,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        output_embeddings: bool = False,
        head_mask: torch.Tensor | None = None,  # (L, nh) or (B, L, nh), 1 = keep, 0 = remove the head
        inputs_embeds: torch.Tensor | None = None,  # (B, T, H), the word embeddings instead of their lookup
    ) -> BertOutput:
        out = self.bert(
            input_ids,
            token_type_ids,
            attention_mask,
            causal=causal,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            output_embeddings=output_embeddings,
            head_mask=head_mask,
            inputs_embeds=inputs_embeds,
        )
        hidden = out.last_hidden_state
        if mlm_labels is not None and mlm_positions is None:
            mlm_positions = mlm_labels != -100
        if mlm_positions is not None:
            # The vocabulary projection costs more than a small encoder: run it where a prediction is wanted.
            out.mlm_logits = self.cls.predictions(hidden[mlm_positions])  # (N, V)
        else:
            out.mlm_logits = self.cls.predictions(hidden)  # (B, T, V)
        out.nsp_logits = self.cls.seq_relationship(out.pooled)  # (B, 2)
        losses = []
        if mlm_labels is not None:
            targets = mlm_labels[mlm_positions]
            losses.append(F.cross_entropy(out.mlm_logits, targets, ignore_index=-100))
        if nsp_labels is not None:
            # Summed and divided by at least one: a batch without any NSP label adds 0, not NaN, and the head
            # stays in the graph (DistributedDataParallel expects a gradient for every parameter).
            labelled = (nsp_labels != -100).sum().clamp(min=1)
            losses.append(F.cross_entropy(out.nsp_logits, nsp_labels, ignore_index=-100, reduction="sum") / labelled)
        if losses:
            out.loss = sum(losses)
        return out
