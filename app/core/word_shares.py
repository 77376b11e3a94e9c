"""Each word's share of an answer, as the fill-mask page (its [MASK]) and the fine-tuning lab (a classifier's
label) show it: integrated gradients' coloured bars beside gradient × input's grey ones, with what both add up to."""

from __future__ import annotations

import math

import streamlit as st

from app.core import ui
from app.core.i18n import t
from app.core.numbers import percent
from app.core.shared_charts import attribution_bars, attribution_summary, blank_already_answers, share_decimals
from app.core.tokens import escape_markdown
from model.results import TokenAttributions


def show_word_shares(
    result: TokenAttributions, *, title: str, axis_title: str, summary: str, note: str, key: str, answer: str = ""
) -> None:
    """The chart, its one-line ``summary`` (a template of ``attribution_summary``; ``answer`` names the answer
    there, the model's own token when empty) and the notes under it: how far the integral misses completeness,
    what gradient × input adds up to, and the page's own ``note``."""
    answer = answer or result.answer.token
    names = (t("common.ig_integrated"), t("common.ig_gradient"))
    chart = attribution_bars(result, title=title, axis_title=axis_title, names=names)
    ui.plot(chart, key=key, summary=attribution_summary(result, summary, answer=answer))
    d = share_decimals(result)
    totals = {
        "steps": result.steps,
        "delta": f"{abs(result.delta):.{d + 1}f}",
        "one_point": f"{sum(result.gradient_x_input):+.{d}f}",
        "move": f"{result.end - result.start:+.{d}f}",
    }
    notes = [t("common.ig_note", **totals), note]
    if blank_already_answers(result):
        blank = t("common.ig_blank_answers", answer=escape_markdown(answer), prob=percent(math.exp(result.start)))
        notes.insert(0, blank)
    st.caption(" ".join(notes))
