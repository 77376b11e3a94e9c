"""Fill-mask: the model's top-k guesses at every [MASK] of the session sentence, bidirectional beside causal.

Why BERT masks instead of reading left to right: Devlin et al. 2019, section 3.1 ("Task #1: Masked LM").
"""

import hashlib

import streamlit as st

from app import masking_lab as lab
from app import models, ui
from app.charts.fill_mask import prediction_bars
from app.i18n import t
from app.navigation import require_entry
from app.state import SETTINGS, keep

MAX_PANELS = 20  # two charts per [MASK]: beyond this the page is a scroll of bars nobody reads
MAX_PILLS = 80

context = require_entry()

st.title(t("fill_mask.title"))
st.markdown(t("fill_mask.lead"))
st.code(t("fill_mask.gpt_point"), language=None)


def _load_example(key: str) -> None:
    st.session_state["text"] = t(f"fill_mask.{key}")


# The reader's language first; the other stays offered, since the model reads both.
examples = ("example_en", "example_zh") if context.lang == "en" else ("example_zh", "example_en")
label_column, *example_columns, _ = st.columns([1, 2, 2, 2], vertical_alignment="center")
label_column.markdown(t("fill_mask.examples"))
for column, key in zip(example_columns, examples):
    column.button(
        lab.escape_markdown(t(f"fill_mask.{key}")), on_click=_load_example, args=(key,), key=f"fill_mask_{key}"
    )

bundle, spec, text = context.bundle, context.spec, context.text
if not text.strip():
    st.info(t("common.empty_input"))
    st.stop()
if not lab.has_mlm_head(bundle):
    st.warning(t("fill_mask.no_mlm_head"))
    st.stop()
mask_id = bundle.tokenizer.mask_token_id

# Clicking tokens masks them in a "base" sentence: the sidebar text as the user last typed it. While the
# sentence is one we derived from the base, the buttons keep showing the base, so a click can also undo.
if st.session_state.get("fill_mask_derived") != text:
    st.session_state["fill_mask_base"] = st.session_state["fill_mask_derived"] = text
base = st.session_state["fill_mask_base"]
base_enc = ui.run_or_explain(models.tokenize, spec, base)
if base_enc is None:
    st.stop()


def _apply_picks(pick_key: str, base_text: str, offsets: list) -> None:
    masked = lab.mask_selected(base_text, offsets, st.session_state[pick_key] or [])
    st.session_state["text"] = st.session_state["fill_mask_derived"] = masked


clickable = lab.maskable_positions(base_enc, mask_id, MAX_PILLS + 1)
if clickable:
    # One widget per base sentence: a new sentence starts with nothing picked.
    pick_key = "fill_mask_pick_" + hashlib.sha1(base.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    readable = lab.readable_tokens(base_enc.tokens, lab.token_surface(base, base_enc.offsets))
    labels = lab.pill_labels(readable, clickable[:MAX_PILLS])
    st.pills(
        t("fill_mask.pick_label"),
        clickable[:MAX_PILLS],
        selection_mode="multi",
        format_func=labels.get,
        key=pick_key,
        on_change=_apply_picks,
        args=(pick_key, base, base_enc.offsets),
    )
    if len(clickable) > MAX_PILLS:
        st.caption(t("fill_mask.pick_truncated", limit=MAX_PILLS))

top_k_range = SETTINGS["fill_mask_top_k"]
top_k = st.slider(t("fill_mask.top_k"), top_k_range.low, top_k_range.high, **keep("fill_mask_top_k"))

enc = base_enc if text == base else ui.run_or_explain(models.tokenize, spec, text)
if enc is None:
    st.stop()
if not lab.mask_positions(enc, mask_id) and "[MASK]" not in text:  # typed but cut off: fill_mask explains that
    st.info(t("fill_mask.no_mask"))
    st.stop()
bidirectional = ui.run_or_explain(models.fill_mask, spec, text, top_k, False)
if bidirectional is None:
    st.stop()
causal = models.fill_mask(spec, text, top_k, True)  # the same text, just validated
ui.truncation_notice(bidirectional, bundle.tokenizer.max_length)
st.caption(t("fill_mask.compare_note"))
total = len(bidirectional.masks)
if total > MAX_PANELS:
    st.info(t("fill_mask.panels_truncated", total=total, shown=MAX_PANELS))

nothing = t("fill_mask.nothing")
readable = lab.readable_tokens(enc.tokens, lab.token_surface(text, enc.offsets))
for number, (seen_both, seen_left) in enumerate(zip(bidirectional.masks[:MAX_PANELS], causal.masks), start=1):
    st.markdown("##### " + t("fill_mask.mask_heading", number=number, position=seen_both.index + 1))
    left, right = lab.context_around(readable, bidirectional.special, seen_both.index)
    st.caption(
        t("fill_mask.context", left=lab.escape_markdown(left) or nothing, right=lab.escape_markdown(right) or nothing)
    )
    both_column, left_column = st.columns(2)
    with both_column:
        ui.plot(
            prediction_bars(seen_both.predictions, title=t("fill_mask.bidirectional_title")),
            key=f"fill_mask_both_{number}",
        )
    with left_column:
        ui.plot(
            prediction_bars(seen_left.predictions, title=t("fill_mask.causal_title"), causal=True),
            key=f"fill_mask_left_{number}",
        )

st.subheader(t("fill_mask.downloads"))
results = {"bidirectional": bidirectional, "causal": causal}
ui.download_buttons(
    "fill_mask",
    lab.PREDICTION_HEADER,
    lab.prediction_rows(results),
    data={kind: result.to_json() for kind, result in results.items()},
    key="fill_mask",
)
