"""Overview (Devlin et al. 2019, sections 3–4): the pre-training → fine-tuning paradigm, sizes, results, legacy."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.core import ui
from app.core.i18n import t
from app.core.models import display_name
from app.core.navigation import PAGE_FILES, PAGES, PAGES_DIR
from app.core.state import PageContext
from app.overview import charts
from model.modeling import bert_base, bert_large


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("overview.title"), t("overview.intro"))
    paradigm()
    sizes(context.bundle)
    results()
    why_it_mattered()
    guide()


def paradigm() -> None:
    """Pre-training, then fine-tuning, with three tasks as examples."""
    st.header(t("overview.paradigm_header"))
    st.markdown(t("overview.paradigm_intro"))
    stages = [
        (t(f"overview.{stage}_stage"), t(f"overview.{stage}_steps").split("|"), t(f"overview.{stage}_note"))
        for stage in ("pretrain", "finetune")
    ]
    ui.static_figure(
        charts.paradigm_figure(*stages[0], *stages[1]),
        summary=charts.paradigm_summary(stages, t("overview.summary_paradigm")),
    )
    st.subheader(t("overview.examples_header"))
    for column, example in zip(st.columns(3), ("sentiment", "ner", "qa")):
        with column.container(border=True):
            st.markdown(f"**{t(f'overview.example_{example}_title')}**")
            st.markdown(t(f"overview.example_{example}"))


def sizes(bundle) -> None:
    """BERT-Base, BERT-Large and the loaded model, counted part by part; the model's card, folded."""
    st.header(t("overview.sizes_header"))
    st.markdown(t("overview.sizes_intro"))
    models = {
        t("overview.model_base"): bert_base(),
        t("overview.model_large"): bert_large(),
        t("overview.model_loaded", name=display_name(bundle)): bundle.config,
    }
    table = charts.size_table(list(models.values()))
    header = [t("overview.col_quantity"), *models]
    rows = [[t(f"overview.row_{key}"), *values] for key, values in table.items()]
    # Static tables (st.table): the first page a student sees loads no data-grid code (by its address, 0.2-0.3 s less).
    st.table(pd.DataFrame(rows, columns=header).set_index(header[0]).style.format("{:,}"))
    ui.download_buttons("bert_sizes", lambda: (header, rows), key="overview_sizes")
    counts = [charts.parameters_by_part(c) for c in models.values()]
    part_labels = {part: t(f"overview.row_{part}") for part in charts.PARTS}
    ui.static_figure(
        charts.parameter_bars(list(models), counts, part_labels, title=t("overview.params_chart_title")),
        summary=charts.parameters_summary(list(models), counts, t("overview.summary_params")),
    )
    st.caption(t("overview.params_note"))
    if bundle.card:
        with st.expander(t("overview.card_expander")):
            st.markdown(bundle.card)  # our own repository's Markdown, not user input


def results() -> None:
    """The paper's results against the best before it."""
    st.header(t("overview.results_header"))
    st.markdown(t("overview.results_intro"))
    rows_by_task = charts.results_rows()
    tasks = [t(f"overview.task_{task}") for task, *_ in rows_by_task]
    results_header = [t("overview.col_task"), t("overview.col_before"), t("overview.col_bert"), t("overview.col_gain")]
    results_table = [[name, before, bert, gain] for name, (_, before, bert, gain) in zip(tasks, rows_by_task)]
    st.table(
        pd.DataFrame(results_table, columns=results_header)
        .set_index(results_header[0])
        .style.format("{:.1f}")
        .format("{:+.1f}", subset=[results_header[3]])
    )
    ui.download_buttons("bert_results", lambda: (results_header, results_table), key="overview_results")
    ui.static_figure(
        charts.results_bars(
            tasks,
            [r[1] for r in rows_by_task],
            [r[2] for r in rows_by_task],
            before_label=t("overview.col_before"),
            bert_label=t("overview.col_bert"),
            title=t("overview.results_chart_title"),
        ),
        summary=charts.results_summary(
            tasks, [r[1] for r in rows_by_task], [r[2] for r in rows_by_task], t("overview.summary_results")
        ),
    )


def why_it_mattered() -> None:
    st.header(t("overview.why_header"))
    st.markdown(t("overview.why_points"))

    with st.expander(t("overview.conventions_header")):
        st.markdown(t("overview.conventions"))
    with st.expander(t("overview.glossary_header")):
        st.markdown(t("overview.glossary"))


def guide() -> None:
    """Every other page, with what it shows, in the registry's order."""
    st.header(t("overview.guide_header"))
    for name in PAGE_FILES:
        if name == "overview":
            continue
        parts = {"page": t(f"{name}.nav"), "text": t(f"{name}.guide")}
        if (PAGES_DIR / f"{name}.py").exists():
            st.page_link(str(PAGES_DIR / f"{name}.py"), label=t("overview.guide_link", **parts), icon=PAGES[name])
        else:
            st.markdown(f"{PAGES[name]} " + t("overview.guide_soon", **parts))
