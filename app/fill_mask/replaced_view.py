"""What ELECTRA's discriminator does in place of filling in a [MASK] (Clark et al. 2020, "ELECTRA: Pre-training Text
Encoders as Discriminators Rather Than Generators"): a small generator fills masked positions, and the discriminator
reads the result and says, for every token, whether it is the text's own or a replacement. The fill-mask page shows
this when the sidebar's model is a discriminator."""

from __future__ import annotations

import streamlit as st

from app.core import models, ui
from app.core.charts import probability_bars, quoted
from app.core.i18n import t
from app.core.numbers import percent
from app.core.palette import ORANGE
from app.core.state import PageContext
from app.core.tokens import escape_markdown, token_surface
from app.fill_mask import logic as lab

MAX_BARS = 64  # one bar per token: past this the chart is a wall; the table download holds every token
EXAMPLES = ("replaced_example_en", "replaced_example_zh")


def _load_example(key: str) -> None:
    st.session_state["text"] = t(f"fill_mask.{key}")


def render_replaced(context: PageContext) -> None:
    """The discriminator's P(replaced) for each token of the sidebar's sentence."""
    st.header(t("fill_mask.replaced_heading"), divider="gray")
    st.markdown(t("fill_mask.replaced_lead"))
    columns = st.columns(len(EXAMPLES))
    for column, key in zip(columns, EXAMPLES if context.reads == "en" else EXAMPLES[::-1]):
        column.button(escape_markdown(t(f"fill_mask.{key}")), on_click=_load_example, args=(key,), key=f"fm_{key}")
    result = ui.run_or_explain(models.replaced_tokens, context.spec, context.text)
    if result is None:
        return
    ui.truncation_notice(result, context.bundle.tokenizer.max_length)
    readable = lab.readable_tokens(result.tokens, token_surface(context.text, result.offsets))
    shown = [(token, p) for token, p, special in zip(readable, result.replaced, result.special) if not special]
    flagged = [f"{quoted(token)} {percent(p, 0)}" for token, p in shown if p >= 0.5]
    ui.plot(
        probability_bars([token for token, _ in shown[:MAX_BARS]], [p for _, p in shown[:MAX_BARS]],
                         title=t("fill_mask.replaced_chart_title"), color=ORANGE),
        key="fill_mask_replaced",
        summary=t("fill_mask.replaced_summary", tokens=", ".join(flagged)) if flagged else t("fill_mask.replaced_none"),
    )  # fmt: skip
    if len(shown) > MAX_BARS:
        st.caption(t("fill_mask.replaced_truncated", limit=MAX_BARS))
    st.caption(t("fill_mask.replaced_how_to_read"))
    header = [t("fill_mask.replaced_col_token"), t("fill_mask.replaced_col_p")]
    ui.download_buttons(
        "replaced_tokens", lambda: (header, [[token, round(p, 6)] for token, p in shown]), data=result.to_json,
        key="fill_mask_replaced",
    )  # fmt: skip
