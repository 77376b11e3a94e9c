"""Fill-mask: the model's top-k guesses at every [MASK] of the session sentence, bidirectional beside causal;
several masks filled all at once (BERT's way) or one at a time; candidate sentences ranked by
pseudo-log-likelihood.

Why BERT masks instead of reading left to right: Devlin et al. 2019, section 3.1 ("Task #1: Masked LM");
Salazar et al. 2020, "Masked Language Model Scoring", for the sentence scores."""

from __future__ import annotations

import hashlib

import streamlit as st

from app.core import model_facts, models, ui
from app.core.errors import explain
from app.core.i18n import t
from app.core.shared_charts import prediction_bars, predictions_summary, share_decimals
from app.core.state import SETTINGS, PageContext, keep, sentence_now, start_in_language
from app.core.tokens import escape_markdown, last_word_position, mask_selected, token_surface
from app.core.word_shares import show_word_shares
from app.fill_mask import logic as lab
from app.fill_mask.charts import (
    fill_order_bars,
    fill_order_summary,
    lens_bars,
    lens_summary,
    pll_bars,
    pll_summary,
    trace_map,
    trace_summary,
)
from app.fill_mask.replaced_view import render_replaced
from model.analysis import tracing
from model.checkpoint import LoadedBert
from model.inference import InputError

MAX_PANELS = 20  # two charts per [MASK]: beyond this the page is a scroll of bars nobody reads
MAX_PILLS = 80
MAX_CANDIDATES = 8  # sentences scored at once; each costs one forward pass per token
MAX_SCORE_TOKENS = 64  # per sentence: batched, 64 tokens cost about 15 single fill-mask passes (measured)


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    spec = context.spec
    if context.bundle.is_discriminator:  # ELECTRA's discriminator spots replaced tokens instead
        st.title(t("fill_mask.title"))
        render_replaced(context)
        model_facts.show(context.bundle, context.lang, key="fill_mask_model")
        return
    ui.page_title(t("fill_mask.title"), t("fill_mask.lead"))
    ui.require_pretraining_head(context.bundle, "mlm")
    # Two sections one after the other (not tabs: the scores stay in view when there is no [MASK] to fill).
    with st.container(key="fill_mask_predict"):
        predicted = fill_section(context)
    if predicted is not None:
        with st.container(key="fill_mask_by_layer"):
            _lens_section(spec, predicted)
        with st.container(key="fill_mask_attribution"):
            _attribution_section(spec, predicted)
        with st.container(key="fill_mask_tracing"):
            _trace_section(context, predicted)
    with st.container(key="fill_mask_score"):
        st.header(t("fill_mask.score_heading"), divider="gray")
        score_section(spec, context.bundle)
    # Show, then tell: predictions above; several masks, why both sides matter and which model answers below.
    with st.expander(t("fill_mask.independent_heading")):
        st.markdown(t("fill_mask.independent_note"))
        _example_buttons("", ("example_two_en", "example_two_zh"), context.reads)
    with st.expander(t("fill_mask.gpt_point_heading")):
        st.markdown(t("fill_mask.gpt_point"))
    model_facts.show(context.bundle, context.lang, key="fill_mask_model")
    _for_engineers(spec, context.text)


def _load_example(key: str) -> None:
    st.session_state["text"] = t(f"fill_mask.{key}")


def _example_buttons(label: str, keys: tuple[str, str], reads: str) -> None:
    """The reader's language first; the other stays offered, since the model reads both."""
    if reads == "zh":
        keys = tuple(reversed(keys))
    # One row that flows: each button as wide as its sentence, so a long example keeps to one line on a projector.
    with st.container(horizontal=True, vertical_alignment="center"):
        if label:
            st.markdown(label, width="content")
        for key in keys:
            st.button(
                escape_markdown(t(f"fill_mask.{key}")), on_click=_load_example, args=(key,), key=f"fill_mask_{key}"
            )


def _apply_picks(pick_key: str, base_text: str, offsets: list) -> None:
    # A rerun can carry the buttons of a sentence the user has replaced since: typing in the sidebar and changing
    # page at once sends the old page's widgets with the new sentence, and the old buttons' "change" would write
    # their sentence back over the new one. Only the buttons of the sentence in use may change it.
    current = sentence_now() == st.session_state.get("fill_mask_derived")
    if not current or st.session_state.get("fill_mask_base") != base_text:
        return
    masked = mask_selected(base_text, offsets, st.session_state[pick_key] or [])
    st.session_state["text"] = st.session_state["fill_mask_derived"] = masked


def fill_section(context: PageContext) -> str | None:
    """The predictions; the text they were made on (with the [MASK] this section may have added), or None."""
    spec, bundle = context.spec, context.bundle
    _example_buttons(t("fill_mask.examples"), ("example_en", "example_zh"), context.reads)
    text = context.text
    if not text.strip():
        st.info(t("common.empty_input"))
        return None
    # Clicking tokens masks them in a "base" sentence: the sidebar text as the user last typed it. While the
    # sentence is one we derived from the base, the buttons keep showing the base, so a click can also undo.
    if st.session_state.get("fill_mask_derived") != text:
        st.session_state["fill_mask_base"] = st.session_state["fill_mask_derived"] = text
    base = st.session_state["fill_mask_base"]
    base_enc = ui.run_or_explain(models.tokenize, spec, base)
    if base_enc is None:
        return None
    _token_picker(base, base_enc, bundle.tokenizer.mask_token_id)
    top_k, decode = _fill_controls()
    masked = _with_a_mask(spec, text, base_enc if text == base else None, bundle.tokenizer.mask_token_id)
    if masked is None:
        return None
    text, enc = masked
    bidirectional = ui.run_or_explain(models.fill_mask, spec, text, top_k, False)
    if bidirectional is None:
        return None
    readable = lab.readable_tokens(enc.tokens, token_surface(text, enc.offsets))
    if decode == "iterative":
        iterative_results(spec, bundle, text, enc, readable, bidirectional, top_k)
        return text
    independent_results(spec, bundle, text, enc, readable, bidirectional, top_k)
    return text


def _per_sentence_key(prefix: str, sentence: str) -> str:
    """A widget key of its own for each sentence, so that a new sentence starts with a fresh widget."""
    return prefix + hashlib.sha1(sentence.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _token_picker(base: str, base_enc, mask_id: int) -> None:
    """A pill per word of the sentence: a click masks it (and a second click unmasks it)."""
    clickable = lab.maskable_positions(base_enc, mask_id, MAX_PILLS + 1)
    if not clickable:
        return
    # One widget per base sentence: a new sentence starts with nothing picked.
    pick_key = _per_sentence_key("fill_mask_pick_", base)
    readable = lab.readable_tokens(base_enc.tokens, token_surface(base, base_enc.offsets))
    labels = lab.pill_labels(readable, clickable[:MAX_PILLS])
    st.pills(
        t("fill_mask.pick_label"),
        clickable[:MAX_PILLS],
        selection_mode="multi",
        format_func=labels.get,
        key=pick_key,
        on_change=_apply_picks,
        args=(pick_key, base, base_enc.offsets),
        help=t("fill_mask.pick_keys"),
    )
    if len(clickable) > MAX_PILLS:
        st.caption(t("fill_mask.pick_truncated", limit=MAX_PILLS))


def _fill_controls() -> tuple[int, str]:
    top_k_range = SETTINGS["fill_mask_top_k"]
    top_k_column, decode_column = st.columns(2)
    top_k = top_k_column.slider(t("fill_mask.top_k"), top_k_range.low, top_k_range.high, **keep("fill_mask_top_k"))
    # A plain dict for the labels: AppTest calls a format_func outside a run.
    decode_labels = {key: t(f"fill_mask.decode_{key}") for key in SETTINGS["fill_mask_decode"].options}
    decode = decode_column.radio(
        t("fill_mask.decode_label"),
        tuple(decode_labels),
        format_func=decode_labels.get,
        horizontal=True,
        **keep("fill_mask_decode"),
    )
    return top_k, decode


def _with_a_mask(spec: str, text: str, enc, mask_id: int):
    """``text`` and its tokens, its last word masked (and said so) when it holds no [MASK]; None where it cannot be
    read. ``enc`` is its tokens when already at hand."""
    enc = enc if enc is not None else ui.run_or_explain(models.tokenize, spec, text)
    if enc is None:
        return None
    if lab.mask_positions(enc, mask_id) or "[MASK]" in text:  # typed but cut off: fill_mask explains that
        return text, enc
    # A sentence without a [MASK] still opens on predictions: its last word is masked here, and said so;
    # the shared sentence itself stays as the reader wrote it.
    position = last_word_position(enc, mask_id)
    if position is None:
        st.info(t("fill_mask.no_mask"))
        return None
    word = token_surface(text, enc.offsets)[position]
    text = mask_selected(text, enc.offsets, [position])
    st.info(t("fill_mask.auto_masked", word=escape_markdown(word)))
    enc = ui.run_or_explain(models.tokenize, spec, text)
    return None if enc is None else (text, enc)


def independent_results(spec: str, bundle, text: str, enc, readable: list[str], bidirectional, top_k: int) -> None:
    """Every [MASK] guessed at once, reading both sides, beside the same model reading only the left side."""
    causal = models.fill_mask(spec, text, top_k, True)  # the same text, just validated
    ui.truncation_notice(bidirectional, bundle.tokenizer.max_length)
    if len(bidirectional.masks) > 1:  # what the independent guesses say together
        guessed = lab.top_guess_text(text, enc.offsets, bidirectional)
        st.markdown(t("fill_mask.filled_independent", text=escape_markdown(guessed)))
    total = len(bidirectional.masks)
    if total > MAX_PANELS:
        st.info(t("fill_mask.panels_truncated", total=total, shown=MAX_PANELS))
    _mask_panels(readable, bidirectional, causal)
    st.caption(t("fill_mask.compare_note"))  # what the two colours are, under the bars
    st.subheader(t("fill_mask.downloads"))
    results = {"bidirectional": bidirectional, "causal": causal}
    ui.download_buttons(
        "fill_mask",
        lambda: (lab.PREDICTION_HEADER, lab.prediction_rows(results)),
        data=lambda: {kind: result.to_json() for kind, result in results.items()},
        key="fill_mask",
    )


def _mask_panels(readable: list[str], bidirectional, causal) -> None:
    total = len(bidirectional.masks)
    nothing = t("fill_mask.nothing")
    for number, (seen_both, seen_left) in enumerate(zip(bidirectional.masks[:MAX_PANELS], causal.masks), start=1):
        if total > 1:  # one [MASK] needs no number
            st.markdown("##### " + t("fill_mask.mask_heading", number=number, position=seen_both.index + 1))
        both_column, left_column = st.columns(2)
        with both_column:
            ui.plot(
                prediction_bars(seen_both.predictions, title=t("fill_mask.bidirectional_title")),
                key=f"fill_mask_both_{number}",
                summary=predictions_summary(seen_both.predictions, t("common.summary_most_likely")),
            )
        with left_column:
            ui.plot(
                prediction_bars(seen_left.predictions, title=t("fill_mask.causal_title"), causal=True),
                key=f"fill_mask_left_{number}",
                summary=predictions_summary(seen_left.predictions, t("common.summary_most_likely")),
            )
        # Under the bars, as a figure's caption: the answers come first on a projector's short screen.
        left, right = lab.context_around(readable, bidirectional.special, seen_both.index)
        st.caption(
            t("fill_mask.context", left=escape_markdown(left) or nothing, right=escape_markdown(right) or nothing)
        )


def iterative_results(spec: str, bundle, text: str, enc, readable: list[str], independent, top_k: int) -> None:
    """All at once beside one at a time: the two filled sentences, the order of filling, and per mask the
    guesses of both ways."""
    iterative = ui.run_or_explain(models.fill_mask_iterative, spec, text, top_k)
    if iterative is None:
        return
    ui.truncation_notice(iterative, bundle.tokenizer.max_length)
    if len(iterative.steps) == 1:
        st.caption(t("fill_mask.single_mask_same"))
    st.markdown(
        t(
            "fill_mask.filled_independent",
            text=escape_markdown(lab.top_guess_text(text, enc.offsets, independent)),
        )
    )
    st.markdown(t("fill_mask.filled_iterative", text=escape_markdown(iterative.filled_text)))
    mask_numbers = {mask.index: number for number, mask in enumerate(independent.masks, start=1)}
    ui.plot(
        fill_order_bars(
            iterative.steps, mask_numbers, title=t("fill_mask.order_title"), label=t("fill_mask.order_label")
        ),
        key="fill_mask_order",
        summary=fill_order_summary(iterative.steps, t("fill_mask.summary_order")),
    )

    round_of = {step.index: n for n, step in enumerate(iterative.steps)}
    seen_in_round = lab.tokens_before_rounds(readable, iterative)
    for number, mask in enumerate(independent.masks, start=1):  # at most MAX_ITERATIVE_MASKS, no more than panels
        n = round_of[mask.index]
        st.markdown("##### " + t("fill_mask.mask_heading", number=number, position=mask.index + 1))
        left, right = lab.context_around(seen_in_round[n], iterative.special, mask.index)
        seen = " ".join(part for part in (escape_markdown(left), "**\\[MASK\\]**", escape_markdown(right)) if part)
        st.caption(t("fill_mask.iterative_context", text=seen))  # this mask in bold; earlier rounds' tokens filled
        all_column, one_column = st.columns(2)
        with all_column:
            ui.plot(
                prediction_bars(mask.predictions, title=t("fill_mask.independent_title")),
                key=f"fill_mask_all_{number}",
                summary=predictions_summary(mask.predictions, t("common.summary_most_likely")),
            )
        with one_column:
            ui.plot(
                prediction_bars(
                    iterative.steps[n].predictions,
                    title=t("fill_mask.iterative_title", round=n + 1),
                    iterative=True,
                ),
                key=f"fill_mask_one_{number}",
                summary=predictions_summary(iterative.steps[n].predictions, t("common.summary_most_likely")),
            )

    st.subheader(t("fill_mask.iterative_downloads"))
    ui.download_buttons(
        "fill_mask_rounds",
        lambda: (lab.ITERATIVE_HEADER, lab.iterative_rows(iterative, mask_numbers)),
        data=lambda: {"independent": independent.to_json(), "iterative": iterative.to_json()},
        key="fill_mask_rounds",
    )


def _remember_scored(text: str) -> None:
    st.session_state["_fill_mask_scored"] = text


def score_section(spec: str, bundle) -> None:
    """Candidate sentences ranked by pseudo-log-likelihood, on request."""
    st.markdown(t("fill_mask.score_lead"))
    # The examples in the reader's language, once; a reader may clear them.
    start_in_language("fill_mask_score", {"fill_mask_candidates": t("fill_mask.score_default")})
    typed = st.text_area(t("fill_mask.score_input"), height=150, **keep("fill_mask_candidates"))
    lines, total = lab.candidate_lines(typed, MAX_CANDIDATES)
    if not lines:
        st.info(t("fill_mask.score_empty"))
        return
    if total > MAX_CANDIDATES:
        st.info(t("fill_mask.score_too_many", limit=MAX_CANDIDATES, total=total))
    # On request only: a sentence costs one forward pass per token, too much to redo on every visit of a class.
    st.button(t("fill_mask.score_run"), on_click=_remember_scored, args=(typed,), key="fill_mask_score_run")
    if st.session_state.get("_fill_mask_scored") != typed:
        st.caption(t("fill_mask.score_press"))
        return
    results = []
    for number, line in lines:
        try:
            enc = models.tokenize(spec, line)
            pieces = len(enc.ids) - 2  # without [CLS] and [SEP]
            if enc.truncated or pieces > MAX_SCORE_TOKENS:
                reason = t(
                    "fill_mask.score_too_long", tokens=len(bundle.tokenizer.tokenize(line)), limit=MAX_SCORE_TOKENS
                )
                st.warning(t("fill_mask.score_line_error", line=number, reason=reason))
                continue
            results.append(models.pseudo_log_likelihood(spec, line))
        except InputError as e:
            st.warning(t("fill_mask.score_line_error", line=number, reason=explain(e)))
    if not results:
        return
    ui.plot(
        pll_bars(
            results,
            title=t("fill_mask.score_chart_title"),
            axis_title=t("fill_mask.score_axis"),
            hover=t("fill_mask.score_hover"),
        ),
        key="fill_mask_scores",
        summary=pll_summary(results, t("fill_mask.summary_scores")),
    )
    st.caption(t("fill_mask.score_how_to_read"))
    st.subheader(t("fill_mask.score_downloads"))
    ui.download_buttons(
        "sentence_scores",
        lambda: (lab.SCORE_HEADER, lab.score_rows(results)),
        data=lambda: [r.to_json() for r in sorted(results, key=lambda r: r.pll, reverse=True)],
        key="fill_mask_scores",
    )


def _for_engineers(spec: str, text: str) -> None:
    ui.for_engineers(
        spec,
        ["fill-mask", text, "--top-k", str(st.session_state["fill_mask_top_k"])],
        ["fill-mask", text, "--causal"],
        [
            "lens",
            text,
            *(["--word", st.session_state["fill_mask_follow"]] if st.session_state["fill_mask_follow"] else []),
        ],
        ["attribute", text],
        ["score", *text.splitlines()[:1]],
    )


def _lens_section(spec: str, text: str) -> None:
    """The first [MASK] read after every layer (the logit lens): where in the stack the answer appears, and the
    rank of a word the reader follows."""
    lens = ui.run_or_explain(models.logit_lens, spec, text)
    if lens is None:
        return
    st.subheader(t("fill_mask.lens_heading"))
    st.markdown(t("fill_mask.lens_lead", answer=escape_markdown(lens.answer.token)))
    word = st.text_input(t("fill_mask.lens_follow"), **keep("fill_mask_follow")).strip()
    followed = None
    if word:
        try:
            followed = models.logit_lens(spec, text, word)
        except InputError as error:
            st.warning(explain(error))
    ui.plot(
        lens_bars(
            lens,
            title=t("fill_mask.lens_title"),
            embeddings_label=t("fill_mask.lens_embeddings"),
            layer_label=t("fill_mask.lens_layer"),
        ),
        key="fill_mask_lens",
        summary=lens_summary(lens, t("fill_mask.lens_summary")),
    )
    header, rows = lab.lens_rows(
        lens,
        followed,
        {key: t(f"fill_mask.lens_col_{key}") for key in ("layer", "top", "rank", "prob")},
        t("fill_mask.lens_embeddings_row"),
    )
    st.dataframe({name: [row[i] for row in rows] for i, name in enumerate(header)}, hide_index=True)
    st.caption(t("fill_mask.lens_note"))


def _attribution_section(spec: str, text: str) -> None:
    """Integrated gradients at the first [MASK], on request: each word's credit for the model's answer there."""
    st.subheader(t("fill_mask.ig_heading"))
    if not st.toggle(t("fill_mask.ig_toggle"), **keep("fill_mask_attribution")):
        return
    result = ui.run_or_explain(models.integrated_gradients, spec, text)
    if result is None:
        return
    answer = escape_markdown(result.answer.token)
    d = share_decimals(result)
    st.markdown(t("fill_mask.ig_lead", answer=answer, start=f"{result.start:.{d}f}", end=f"{result.end:.{d}f}"))
    show_word_shares(
        result,
        title=t("fill_mask.ig_title"),
        axis_title=t("fill_mask.ig_axis"),
        summary=t("fill_mask.ig_summary"),
        note=t("fill_mask.ig_note"),
        key="fill_mask_ig",
    )


def _trace_section(context: PageContext, text: str) -> None:
    """Causal tracing at the first [MASK], on request: which layer at which token carries the answer. The first
    noise draw's maps come first (a second on the embedded model), then the mean over every draw replaces them."""
    st.subheader(t("fill_mask.trace_heading"))
    if not st.toggle(t("fill_mask.trace_toggle"), **keep("fill_mask_trace")):
        return
    blurred = _words_to_blur(context.bundle, text)
    if not blurred:
        return
    maps = st.empty()
    with maps.container(), st.spinner():
        first = ui.run_or_explain(models.causal_trace, context.spec, text, blurred, range(1))
    if first is None:
        return
    with maps.container():
        _trace_maps(first, final=False)
    rest = models.causal_trace(context.spec, text, blurred, range(1, tracing.SAMPLES))
    with maps.container():
        _trace_maps(first.merged(rest), final=True)


def _trace_maps(trace: tracing.TraceResult, final: bool) -> None:
    """The lead and the three maps; the first draw's under keys of their own (the final maps replace them in the
    same run, and a key is drawn once a run)."""
    st.markdown(
        t(
            "fill_mask.trace_lead",
            answer=escape_markdown(trace.answer.token),
            clean=f"{trace.answer.prob:.3f}",
            corrupted=f"{trace.corrupted_prob:.3f}",
        )
    )
    top = max(float(grid.max()) for grid in trace.restored.values())
    layer_label = t("fill_mask.trace_layer")

    def draw(kind: str) -> None:
        chart = trace_map(
            trace.restored[kind],
            trace.tokens,
            title=t(f"fill_mask.trace_{kind}_title"),
            layer_label=layer_label,
            zmax=top,
        )
        key = f"fill_mask_trace_{kind}" if final else f"fill_mask_trace_{kind}_first_draw"
        ui.plot(chart, key=key, summary=trace_summary(trace, kind, t("fill_mask.trace_summary")))

    draw("layer")
    for column, kind in zip(st.columns(2), ("attention", "ffn"), strict=True):
        with column:
            draw(kind)
    if final:
        st.caption(t("fill_mask.trace_note", noise=f"{tracing.NOISE:g}", samples=trace.draws))
    else:
        st.caption(t("fill_mask.trace_first_draw", samples=tracing.SAMPLES))


def _words_to_blur(bundle: LoadedBert, text: str) -> tuple[int, ...]:
    """The words the student picks to blur, a pill each, every word at first (Meng et al. blur the subject, a
    student finds out which words matter); empty, with the reason said, when none is picked."""
    enc, _, words = ui.run_or_explain(tracing.corruptible, bundle, text) or (None, None, [])
    if not words:
        return ()
    # One widget per sentence: a new sentence starts with every word picked.
    pick_key = _per_sentence_key("fill_mask_blur_", text)
    readable = lab.readable_tokens(enc.tokens, token_surface(text, enc.offsets))
    labels = lab.pill_labels(readable, words[:MAX_PILLS])
    picked = st.pills(
        t("fill_mask.trace_pick"),
        words[:MAX_PILLS],
        selection_mode="multi",
        default=words[:MAX_PILLS],
        format_func=labels.get,
        key=pick_key,
    )
    if not picked:
        st.info(t("fill_mask.trace_pick_none"))
    return tuple(sorted(picked))
