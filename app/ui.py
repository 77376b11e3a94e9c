"""Small rendering helpers the pages share: messages for bad input, downloads, truncation notices."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

import streamlit as st

from model.checkpoint import CheckpointError
from model.inference import InputError

from .i18n import t
from .masking_lab import has_mlm_head
from .models import display_name


def explain(error: InputError | CheckpointError) -> str:
    """The error in the session's language (the model's English message where no translation exists)."""
    if getattr(error, "code", None) is None:
        return str(error)
    kind = "checkpoint" if isinstance(error, CheckpointError) else "error"
    key = f"common.{kind}_{error.code}"
    text = t(key, **error.values)
    return str(error) if text == key else text


def require_pretraining_head(bundle, head: str) -> None:
    """Stop the page with a plain message when the model lacks the pre-training ``head`` ("mlm" or "nsp") it
    needs: a fine-tuned classifier has neither (its task head replaced both)."""
    if has_mlm_head(bundle):  # the MLM and NSP heads come together (``BertForPreTraining.cls``)
        return
    st.warning(missing_head(bundle, head))
    st.stop()


def missing_head(bundle, head: str) -> str:
    """Why a fine-tuned model cannot do what a pre-training ``head`` ("mlm" or "nsp") does, and what to choose."""
    return t("common.needs_head", head=t(f"common.head_{head}"), name=display_name(bundle))


def run_or_explain(fn, *args, **kwargs):
    """Call ``fn``; on bad input show the reason in the page and return None instead of a traceback."""
    try:
        return fn(*args, **kwargs)
    except InputError as e:
        if e.code in ("empty_text", "empty_first"):  # the sidebar's sentence: not a mistake, a page waiting for it
            st.info(t("common.empty_input"))
        else:
            st.warning(explain(e))
        return None


def truncation_notice(result, limit: int) -> None:
    if getattr(result, "truncated", False):
        st.info(t("common.truncated", limit=limit))


def to_csv(header: list[str], rows: list[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def download_buttons(
    name: str,
    header: list[str],
    rows: list[list],
    data: dict | list | Callable[[], dict | list] | None = None,
    key: str = "",
) -> None:
    """CSV of a table, and optionally the full JSON (or a function that makes it), side by side.

    Both files are made when the reader clicks, not on every run: the attention page's JSON of every map took
    a tenth of its run, and a class of thirty re-ran it for nothing."""
    columns = st.columns(2)
    columns[0].download_button(
        t("common.download_csv"),
        lambda: to_csv(header, rows),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"csv_{key or name}",
    )
    if data is not None:
        columns[1].download_button(
            t("common.download_json"),
            lambda: json.dumps(data() if callable(data) else data, ensure_ascii=False),
            file_name=f"{name}.json",
            mime="application/json",
            key=f"json_{key or name}",
        )


PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def plot(fig, key: str | None = None) -> None:
    """Render a plotly figure with the camera button that saves it as a PNG."""
    st.plotly_chart(fig, config=PLOTLY_CONFIG, key=key, width="stretch")
