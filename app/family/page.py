"""BERT's family (issue 57): each descendant as the one or two choices it changed in BERT's recipe, what those cost or
save computed from real shapes, and a live experiment against BERT's own recipe on the same data, seed, tiny model
and time budget. The job and its view are Watch BERT learn's (app.core.live_jobs, app.core.live_view)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app.core import live_charts, live_jobs, live_view, ui
from app.core.i18n import t
from app.core.live_jobs import DISTILLATION, LiveSnapshot, last_record
from app.core.state import SETTINGS, PageContext, keep
from model.checkpoint import EMBEDDED_DIR, read_config
from model.modeling import albert_base, bert_base, count_parameters
from model.training.live import MEASURED_VARIANTS, MODEL_SIZES, VARIANTS, live_settings, parameters

KEY = "family"


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    lang = context.reads  # the language the tiny models train on
    st.title(t("family.title"))
    st.markdown(t("family.intro"))
    choose_experiment()
    variant = st.session_state["family_experiment"]
    st.markdown(t(f"family.{variant}_text", **variant_facts(variant)))
    active = live_view.start_and_stop(KEY, lambda: start_job(lang))
    with st.container(key="family_view"):
        live_view.live_run(KEY, active, lang, draw)
    ui.for_engineers("embedded", command(variant, lang))


def choose_experiment() -> None:
    experiment_column, budget_column = st.columns([2, 1])
    experiment_column.radio(
        t("family.experiment"),
        SETTINGS["family_experiment"].options,
        format_func=lambda name: t(f"family.experiment_{name}"),
        help=t("family.experiment_help"),
        **keep("family_experiment"),
    )
    budget_column.selectbox(
        t("family.budget"),
        SETTINGS["family_budget"].options,
        format_func=lambda seconds: t("family.budget_value", seconds=seconds),
        **keep("family_budget"),
    )


def command(variant: str, lang: str) -> list[str]:
    """The experiment's second run on the command line (the first is the live preset itself)."""
    seconds = str(st.session_state["family_budget"])
    if variant == DISTILLATION:
        return ["distill", "--seconds", seconds, "--json"]
    return ["pretrain", "--preset", "live", "--variant", variant, "--max-seconds", seconds, "--json", "--lang", lang]


def start_job(lang: str) -> live_jobs.LiveJob:
    state = st.session_state
    return live_jobs.start(state["job_owner"], lang, state["family_experiment"], state["family_budget"])


def draw(snapshot: LiveSnapshot, *, lang: str, status_text) -> None:
    if snapshot.experiment == DISTILLATION:
        distillation(snapshot, lang=lang, status_text=status_text)
    else:
        live_view.pretraining(snapshot, lang=lang, status_text=status_text, notes=variant_finding)


# --- what each descendant changed, computed from shapes ---------------------------------------------------------


def variant_facts(variant: str) -> dict:
    """What a variant's description computes: ALBERT's and the half-depth student's sizes, from the shapes."""
    if variant == "albert":
        albert = live_settings("en", **VARIANTS["albert"])
        return {
            "embedding": albert.embedding_size,
            "hidden": MODEL_SIZES["hidden_size"],
            "bert_base": count_parameters(bert_base())["total"],
            "albert_base": count_parameters(albert_base())["total"],
            "bert_tiny": parameters(live_settings("en")),
            "albert_tiny": parameters(albert),
        }
    if variant == DISTILLATION:
        embedded, base = read_config(EMBEDDED_DIR), bert_base()
        return {
            "teacher_layers": embedded.num_hidden_layers,
            "student_layers": embedded.num_hidden_layers // 2,
            "teacher": count_parameters(embedded)["total"],
            "student": half_depth_parameters(embedded),
            "bert_base": count_parameters(base)["total"],
            "bert_base_half": half_depth_parameters(base),
        }
    return {}


def half_depth_parameters(config) -> int:
    return count_parameters(replace(config, num_hidden_layers=config.num_hidden_layers // 2))["total"]


# --- a finished experiment's finding ------------------------------------------------------------------------------


def variant_finding(snapshot: LiveSnapshot, names: dict[str, str]) -> None:
    """Once every run has ended: what this run measured, beside three seeds' intervals."""
    variant = snapshot.experiment
    finals = {run: last_record(snapshot, run) for run in snapshot.runs}
    if not snapshot.finished or any(r is None or "heldout_span_top1" not in r for r in finals.values()):
        return
    measured = MEASURED_VARIANTS[variant][snapshot.lang]
    st.markdown(t(f"family.{variant}_finding", **FINDINGS[variant](finals, measured)))


def spanbert_finding(finals: dict[str, dict], measured: dict) -> dict:
    top1 = {run: r["heldout_top1"] for run, r in finals.items()}
    span = {run: r["heldout_span_top1"] for run, r in finals.items()}
    return {
        "bert": top1["token_masking"],
        "span": top1["span_masking"],
        "single_delta": 100 * (top1["span_masking"] - top1["token_masking"]),
        "bert_span": span["token_masking"],
        "span_span": span["span_masking"],
        "span_delta": 100 * (span["span_masking"] - span["token_masking"]),
        "measured_single": live_view.interval(measured["span_masking"]["heldout_top1"]),
        "measured_span": live_view.interval(measured["span_masking"]["heldout_span_top1"]),
    }


def roberta_finding(finals: dict[str, dict], measured: dict) -> dict:
    top1 = {run: r["heldout_top1"] for run, r in finals.items()}
    return {
        "static": top1["static_masks"],
        "dynamic": top1["dynamic_masks"],
        "mlm_only": top1["mlm_only"],
        "static_delta": 100 * (top1["static_masks"] - top1["dynamic_masks"]),
        "nsp_delta": 100 * (top1["mlm_only"] - top1["dynamic_masks"]),
        "dynamic_nsp": finals["dynamic_masks"]["nsp_acc"],
        "mlm_only_nsp": finals["mlm_only"]["nsp_acc"],
        "nsp_majority": finals["dynamic_masks"]["nsp_majority"],
        "measured_static": live_view.interval(measured["static_masks"]["heldout_top1"]),
        "measured_mlm_only": live_view.interval(measured["mlm_only"]["heldout_top1"]),
    }


def albert_finding(finals: dict[str, dict], measured: dict) -> dict:
    values = {}
    for run, name in (("next_sentence", "nsp"), ("sentence_order", "sop"), ("albert", "albert")):
        values |= {
            name: finals[run]["heldout_top1"],
            f"{name}_on_nsp": finals[run]["nsp_acc"],
            f"{name}_on_order": finals[run]["heldout_order_acc"],
        }
    return values | {
        "nsp_majority": finals["next_sentence"]["nsp_majority"],
        "order_majority": finals["next_sentence"]["order_majority"],
        "measured_sop_top1": live_view.interval(measured["sentence_order"]["heldout_top1"]),
        "measured_sop_order": live_view.interval(measured["sentence_order"]["heldout_order_acc"]),
        "measured_albert_top1": live_view.interval(measured["albert"]["heldout_top1"]),
    }


FINDINGS = {"spanbert": spanbert_finding, "roberta": roberta_finding, "albert": albert_finding}


# --- DistilBERT: the embedded model distilled, live -----------------------------------------------------------------


def distillation(snapshot: LiveSnapshot, *, lang: str, status_text) -> None:
    """The student's agreement with the teacher as it learns, against where it started and the teacher's own top-1;
    once it ends, its size, speed and everyday cloze beside the teacher's."""
    live_view.status_and_progress(snapshot, status_text)
    records = snapshot.records[DISTILLATION]
    if not records:
        return
    first, last = records[0], records[-1]
    st.markdown(
        t(
            "family.distilbert_result",
            agreement=last["agreement"],
            start=first["agreement"],
            student=last["student_top1"],
            teacher=last["teacher_top1"],
            steps=last["steps"],
            targets=last["targets"],
        )
    )
    st.subheader(t("family.distilbert_header"))
    curves = {"agreement": "agreement", "student": "student_top1"}
    as_runs = {
        name: tuple(
            {"steps": r["steps"], "heldout_top1": r[key], "frequency_baseline_top1": r["teacher_top1"]} for r in records
        )
        for name, key in curves.items()
    }
    names = {name: t(f"family.distilbert_{name}") for name in curves}
    figure = live_view.chart(
        "distillation",
        snapshot,
        lang,
        live_charts.accuracy_curves,
        as_runs,
        run_names=names,
        baseline_name=t("family.distilbert_teacher"),
        accuracy_title=t("family.distilbert_share"),
        step_title=t("live_run.step"),
    )
    summary = live_charts.accuracy_summary(
        as_runs, names, t("family.distilbert_summary"), t("family.distilbert_summary_teacher")
    )
    ui.plot(figure, key="family_distillation", summary=summary)
    if snapshot.finished and "speed_ratio" in last:
        st.markdown(t("family.distilbert_finding", **distillation_finding(last)))


def distillation_finding(final: dict) -> dict:
    teacher = count_parameters(read_config(EMBEDDED_DIR))
    shares = {
        "saved": 1 - final["student_parameters"] / final["teacher_parameters"],
        "vectors": teacher["embeddings"] / teacher["total"],
    }
    return shares | {
        key: final[key]
        for key in (
            "student_layers",
            "teacher_layers",
            "student_parameters",
            "teacher_parameters",
            "speed_ratio",
            "student_ms",
            "teacher_ms",
            "student_cloze_top1_en",
            "teacher_cloze_top1_en",
            "student_cloze_top1_zh",
            "teacher_cloze_top1_zh",
        )
    }
