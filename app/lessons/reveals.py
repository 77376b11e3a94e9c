"""The answers a lesson reveals, computed live from the model and the page's settings: a lesson file names one of
``REVEALS`` and its parameters; it never holds the answer itself.

Each reveal takes the run's context and the step's reveal parameters and returns a ``Reveal``: the answer as the
question's option value (or the word a typed answer is compared with), the sentence that explains it, and the
model's ranked candidates where it has probabilities (what the class quiz shows beside the class's answers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from app.core import models
from app.core.counting import counted
from app.core.i18n import t
from app.core.numbers import percent
from app.core.state import PageContext
from app.core.tokens import escape_markdown
from model.checkpoint import count_parameters
from model.training.live import MEASURED_VARIANTS, VARIANTS, live_settings, parameters


@dataclass(frozen=True)
class Reveal:
    answer: str  # an option's value, or the word a typed answer should be
    text: str  # Markdown, in the session's language
    ranked: list[tuple[str, float]] = field(default_factory=list)  # the model's candidates with their probabilities
    accepted: tuple[str, ...] = ()  # typed answers that count as right besides ``answer`` (BERT's other top words)


def _third(layer: int, layers: int) -> str:
    """ "early", "middle" or "late": which third of the stack a layer is in."""
    return ("early", "middle", "late")[min(2, layer * 3 // layers)]


def masking_split(context: PageContext, params: dict) -> Reveal:
    """What share of the chosen tokens becomes [MASK]: the masking lab's own split, as the page uses it."""
    low, high = st.session_state["masking_split"]
    text = t(
        "lessons.reveal_masking_split",
        rate=st.session_state["masking_rate"],
        mask=low,
        random=high - low,
        keep=100 - high,
    )
    return Reveal(str(low), text)


def nsp_is_next(context: PageContext, params: dict) -> Reveal:
    """BERT's next-sentence head on the typed pair: sentence A is the shared sentence, B the page's box."""
    second = st.session_state.get(f"nsp_second_{context.lang}") or t("nsp.second_default")
    result = models.next_sentence(context.spec, context.text, second)
    answer = "yes" if result.is_next >= 0.5 else "no"
    ranked = [("yes", result.is_next), ("no", 1 - result.is_next)]
    return Reveal(answer, t(f"lessons.reveal_nsp_{answer}", p=result.is_next), sorted(ranked, key=lambda r: -r[1]))


def repeated_token_embedding(context: PageContext, params: dict) -> Reveal:
    """A word that occurs twice: its token parts are the same row, its position parts differ, so its sums differ."""
    parts = models.embeddings(context.spec, context.text)
    seen: dict[str, int] = {}
    for index, (token, special) in enumerate(zip(parts.tokens, parts.special)):
        if special:
            continue
        if token in seen:
            first = seen[token]
            token_gap = float(np.linalg.norm(parts.token[first] - parts.token[index]))
            sum_gap = float(np.linalg.norm(parts.sum[first] - parts.sum[index]))
            answer = "no" if sum_gap > 1e-6 else "yes"
            text = t(
                f"lessons.reveal_embedding_{answer}",
                token=escape_markdown(token),
                first=first,
                second=index,
                token_gap=token_gap,
                sum_gap=sum_gap,
            )
            return Reveal(answer, text)
        seen[token] = index
    return Reveal("", t("lessons.reveal_embedding_none"))


def attention_target(context: PageContext, params: dict) -> Reveal:
    """Where one word looks most in the sidebar's layer and head: itself, a neighbour, [CLS]/[SEP], or elsewhere."""
    word = context.bundle.tokenizer.folded(params["word"][context.lang])  # as the tokens show it
    result = models.attention(context.spec, context.text)
    tokens = [token.lower() for token in result.tokens]
    if word.lower() not in tokens:
        return Reveal("", t("lessons.reveal_word_missing", word=escape_markdown(word)))
    row = tokens.index(word.lower())
    layer, head = st.session_state["layer"], st.session_state["head"]
    weights = result.attentions[layer, head, row]
    target = int(np.argmax(weights))
    if result.special[target]:
        answer = "special"
    else:
        answer = {0: "self", -1: "previous", 1: "next"}.get(target - row, "other")
    text = t(
        "lessons.reveal_attention",
        word=escape_markdown(word),
        layer=counted(layer),
        head=counted(head),
        target=escape_markdown(result.tokens[target]),
        share=float(weights[target]),
        kind=t(f"lessons.kind_{answer}"),
    )
    return Reveal(answer, text)


def fill_mask_top(context: PageContext, params: dict) -> Reveal:
    """BERT's top words at the sentence's first [MASK]."""
    result = models.fill_mask(context.spec, context.text, 5, False)
    if not result.masks:
        return Reveal("", t("lessons.reveal_no_mask"))
    predictions = result.masks[0].predictions
    words = [p.token.removeprefix("##") for p in predictions]
    listed = ", ".join(f"{escape_markdown(w)} ({percent(p.prob)})" for w, p in zip(words, predictions))
    return Reveal(
        words[0].lower(),
        t("lessons.reveal_fill_mask", top=escape_markdown(words[0]), listed=listed),
        [(w, p.prob) for w, p in zip(words, predictions)],
        accepted=tuple(w.lower() for w in words),
    )


def causal_confidence(context: PageContext, params: dict) -> Reveal:
    """The top guess at [MASK] with both sides seen, and with the left side only (GPT's causal mask)."""
    both = models.fill_mask(context.spec, context.text, 1, False)
    left = models.fill_mask(context.spec, context.text, 1, True)
    if not both.masks:
        return Reveal("", t("lessons.reveal_no_mask"))
    b, c = both.masks[0].predictions[0], left.masks[0].predictions[0]
    answer = "less" if c.prob < b.prob else "more"
    text = t(
        f"lessons.reveal_causal_{answer}",
        both=escape_markdown(b.token),
        both_p=b.prob,
        left=escape_markdown(c.token),
        left_p=c.prob,
    )
    return Reveal(answer, text)


def classifier_size(context: PageContext, params: dict) -> Reveal:
    """A two-class head on [CLS] beside the whole pre-trained network: the new weights fine-tuning starts from."""
    config = context.bundle.config
    head = config.hidden_size * 2 + 2  # a (hidden → 2) matrix and its 2 biases
    total = count_parameters(config)["total"]
    answer = "thousands" if head < 10_000 else "millions" if head < total else "more"
    text = t("lessons.reveal_classifier", weights=head, total=total, share=head / total)
    return Reveal(answer, text)


def special_share(context: PageContext, params: dict) -> Reveal:
    """How much of the sidebar's layer's attention lands on [CLS] and [SEP], averaged over heads and tokens."""
    stats = models.head_statistics(context.spec, context.text, None, False)
    layer = st.session_state["layer"]
    share = float((stats["cls"][layer] + stats["sep"][layer]).mean())
    answer = "special" if share >= 0.5 else "words"
    return Reveal(answer, t("lessons.reveal_special_share", layer=counted(layer), share=share))


def head_layer(context: PageContext, params: dict) -> Reveal:
    """The head with the most of one statistic (``previous``, ``next``...) or the most focused one (``entropy``,
    lowest), and which third of the stack its layer is in."""
    name = params["statistic"]
    stats = models.head_statistics(context.spec, context.text, None, False)[name]
    index = int(np.argmin(stats) if name == "entropy" else np.argmax(stats))
    layer, head = np.unravel_index(index, stats.shape)
    answer = _third(int(layer), stats.shape[0])
    text = t(
        f"lessons.reveal_head_{name}",
        layer=counted(layer),
        head=counted(head),
        value=float(stats[layer, head]),
        third=t(f"lessons.third_{answer}"),
    )
    return Reveal(answer, text)


def entropy_trend(context: PageContext, params: dict) -> Reveal:
    """Whether the last layer's heads spread their attention wider than the first layer's (mean entropy, bits)."""
    entropy = models.head_statistics(context.spec, context.text, None, False)["entropy"]
    first, last = float(entropy[0].mean()), float(entropy[-1].mean())
    answer = "wider" if last > first else "narrower"
    return Reveal(answer, t(f"lessons.reveal_entropy_{answer}", first=first, last=last, layers=entropy.shape[0]))


def layer_count(context: PageContext, params: dict) -> Reveal:
    """How many sets of vectors a word gets: the embedding output and one per encoder layer."""
    layers = context.bundle.config.num_hidden_layers
    return Reveal(str(layers + 1), t("lessons.reveal_layers", layers=layers, total=layers + 1))


def lens_first_top(context: PageContext, params: dict) -> Reveal:
    """From which layer on the model's final answer at the first [MASK] is already its top guess (the logit lens,
    read through the MLM head after every layer), and which third of the stack that layer is in."""
    lens = models.logit_lens(context.spec, context.text)
    depth, layers = lens.first_top, len(lens.layers) - 1  # 0: the embeddings; k: after the k-th layer
    answer = _third(max(depth - 1, 0), layers)
    text = t(
        "lessons.reveal_lens",
        word=escape_markdown(lens.answer.token),
        depth=depth,
        layers=layers,
        third=t(f"lessons.third_{answer}"),
    )
    return Reveal(answer, text)


def untrained_loss(context: PageContext, params: dict) -> Reveal:
    """The masked-LM loss of a model that spreads its guess evenly over the vocabulary: ln V."""
    vocab = context.bundle.tokenizer.vocab_size
    loss = math.log(vocab)
    answer = "small" if loss < 3 else "ten" if loss < 30 else "hundred"
    return Reveal(answer, t("lessons.reveal_untrained_loss", vocab=vocab, loss=loss))


def albert_tradeoff(context: PageContext, params: dict) -> Reveal:
    """Which tiny model guesses more held-out [MASK]s after the same steps, BERT's or ALBERT's narrow, shared one: the
    family page's three-seed interval (``MEASURED_VARIANTS``) says, or says that it cannot tell."""
    mean, low, high = MEASURED_VARIANTS["albert"][context.reads]["albert"]["heldout_top1"]
    answer = "bert" if high < 0 else "albert" if low > 0 else "tie"
    bert, albert = (parameters(live_settings("en", **VARIANTS[name])) for name in ("bert", "albert"))
    text = t(f"lessons.reveal_albert_{answer}", mean=mean, low=low, high=high, share=albert / bert)
    return Reveal(answer, text)


REVEALS = {
    fn.__name__: fn
    for fn in (
        masking_split,
        nsp_is_next,
        repeated_token_embedding,
        attention_target,
        fill_mask_top,
        causal_confidence,
        classifier_size,
        special_share,
        head_layer,
        entropy_trend,
        layer_count,
        lens_first_top,
        untrained_loss,
        albert_tradeoff,
    )
}


def reveal(context: PageContext, params: dict) -> Reveal:
    return REVEALS[params["kind"]](context, params)
