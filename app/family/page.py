"""BERT's family (issue 57): each descendant as the one or two choices it changed in BERT's recipe, what those cost or
save computed from real shapes, and a live experiment against BERT's own recipe on the same data, seed, tiny model
and time budget. The job and its view are Watch BERT learn's (app.core.live_jobs, app.core.live_view)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from app.core import live_charts, live_jobs, live_view, ui
from app.core.charts import probability_bars, ranked_summary
from app.core.i18n import t
from app.core.live_jobs import DISTILLATION, LiveSnapshot, last_record
from app.core.palette import BLUE, VERMILLION
from app.core.state import PageContext
from model.checkpoint import EMBEDDED_DIR, read_config
from model.modeling import albert_base, bert_base, count_parameters
from model.training.live import MEASURED_VARIANTS, MODEL_SIZES, VARIANTS, live_settings, parameters

KEY = "family"


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    lang = context.reads  # the language the tiny models train on
    ui.page_title(t("family.title"), t("family.intro"))
    live_view.choose_experiment(
        KEY,
        label=t("family.experiment"),
        help=t("family.experiment_help"),
        name_of=lambda name: t(f"family.experiment_{name}"),
    )
    variant = st.session_state["family_experiment"]
    st.markdown(t(f"family.{variant}_text", **variant_facts(variant)))
    active = live_view.start_and_stop(KEY, lambda: start_job(lang, context.text))
    with st.container(key="family_view"):
        live_view.live_run(KEY, active, lang, draw)
    ui.for_engineers("embedded", command(variant, lang))


def command(variant: str, lang: str) -> list[str]:
    """The experiment's second run on the command line (the first is the live preset itself)."""
    seconds = str(st.session_state["family_budget"])
    if variant == DISTILLATION:
        return ["distill", "--seconds", seconds, "--json"]
    return ["pretrain", "--preset", "live", "--variant", variant, "--max-seconds", seconds, "--json", "--lang", lang]


def start_job(lang: str, text: str) -> live_jobs.LiveJob:
    state = st.session_state
    experiment, budget = state["family_experiment"], state["family_budget"]
    return live_jobs.start(state["job_owner"], lang, experiment, budget, text)


def draw(snapshot: LiveSnapshot, *, lang: str, status_text) -> None:
    if snapshot.experiment == DISTILLATION:
        distillation(snapshot, lang=lang, status_text=status_text)
    elif snapshot.experiment == "electra":
        electra(snapshot, lang=lang, status_text=status_text)
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


# --- ELECTRA: replaced-token detection against MLM, in equal time -------------------------------------------------


def electra(snapshot: LiveSnapshot, *, lang: str, status_text) -> None:
    """Each model at its own task as it learns (MLM's [MASK]s, the discriminator's "replaced?"), then both encoders
    at one task neither trained on, and the student's sentence as the discriminator read it."""
    live_view.status_and_progress(snapshot, status_text)
    names = {run: live_view.run_name(run) for run in snapshot.runs}
    mlm, detector = (last_record(snapshot, run) for run in ("mlm", "electra"))
    if mlm is not None:
        live_view.latest_results(snapshot, {"mlm": names["mlm"]})
    if detector is not None:
        st.markdown(t("family.electra_result", **{key: detector[key] for key in ELECTRA_RESULT}))
    if mlm is None:
        return
    live_view.accuracy_curves(snapshot, lang, names | {"electra": t("family.electra_generator")})
    if detector is not None:
        detection_curve(snapshot, lang, names["electra"])
    if snapshot.finished and detector is not None and "probe_acc" in mlm and "probe_acc" in detector:
        measured = MEASURED_VARIANTS["electra"][snapshot.lang]["electra"]["probe_acc"]
        st.markdown(
            t("family.electra_finding", **electra_finding(mlm, detector), measured=live_view.interval(measured))
        )
    if detector is not None and "replaced_view" in detector:
        replaced_tokens(detector["replaced_view"], snapshot, lang)


ELECTRA_RESULT = ("rtd_auc", "rtd_acc", "rtd_baseline", "rtd_recall", "heldout_top1", "steps")


def detection_curve(snapshot: LiveSnapshot, lang: str, name: str) -> None:
    st.subheader(t("family.electra_header"))
    rows = {
        "electra": tuple(
            {"steps": r["steps"], "heldout_top1": r["rtd_auc"], "frequency_baseline_top1": 0.5}  # chance
            for r in snapshot.records["electra"]
        )
    }
    figure = live_view.chart(
        "detection",
        snapshot,
        lang,
        live_charts.accuracy_curves,
        rows,
        run_names={"electra": name},
        baseline_name=t("family.electra_baseline"),
        accuracy_title=t("family.electra_share"),
        step_title=t("live_run.step"),
    )
    summary = live_charts.accuracy_summary(
        rows, {"electra": name}, t("family.electra_summary"), t("family.electra_summary_baseline")
    )
    ui.plot(figure, key="family_detection", summary=summary)


def electra_finding(mlm: dict, detector: dict) -> dict:
    task = mlm["probe_task"]  # model.training.downstream.TASKS
    return {
        "task": t(f"family.task_{task}"),
        "test": mlm["probe_test"],
        "mlm": mlm["probe_acc"],
        "electra": detector["probe_acc"],
        "delta": 100 * (detector["probe_acc"] - mlm["probe_acc"]),
        "untrained": mlm["probe_untrained_acc"],
        "bow": mlm["probe_bow_acc"],
        "majority": mlm["probe_majority"],
        "mlm_steps": mlm["steps"],
        "electra_steps": detector["steps"],
    }


def replaced_tokens(view: dict, snapshot: LiveSnapshot, lang: str) -> None:
    """The student's sentence with the generator's replacements, each token's probability of "replaced" as a bar."""
    st.subheader(t("family.electra_view_header"))
    labels = [
        f"{original} → {shown}" if replaced else shown
        for original, shown, replaced in zip(view["original"], view["tokens"], view["replaced"])
    ]
    colours = [VERMILLION if replaced else BLUE for replaced in view["replaced"]]
    st.caption(t("family.electra_view_caption", replaced=sum(view["replaced"]), chosen=len(view["chosen"])))
    figure = live_view.chart("replaced", snapshot, lang, probability_bars, labels, view["p_replaced"], color=colours)
    summary = ranked_summary(labels, view["p_replaced"], t("family.electra_view_summary"))
    ui.plot(figure, key="family_replaced", summary=summary)


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
