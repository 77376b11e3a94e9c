"""Watch BERT learn: a tiny BERT pre-trained from scratch while the student watches (issue #19), and the
masking choices tested side by side rather than told: 15% vs 40%, 80/10/10 vs 100% [MASK], with and without NSP."""

from __future__ import annotations

import functools

import streamlit as st

from app.core import job_view, ui
from app.core.charts import probability_bars, ranked_summary, strongest_link
from app.core.i18n import t
from app.core.shared_charts import attention_map
from app.core.state import SETTINGS, PageContext, keep
from app.pretrain_live import charts, jobs
from model.modeling import albert_base, bert_base, count_parameters
from model.training.live import (
    MEASURED_120S,
    MEASURED_VARIANTS,
    MODEL_SIZES,
    PROBES,
    VARIANTS,
    VOCAB_SIZE,
    live_settings,
    parameters,
)


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    lang = context.reads  # the language the two minutes train on

    st.title(t("pretrain_live.title"))
    st.markdown(t("pretrain_live.intro"))
    choose_experiment()
    active = start_and_stop(lang)
    live_run(active, lang)
    # Show, then tell: the run above, what was chosen and why below, folded.
    choices_and_why(lang)
    budget = str(st.session_state["pretrain_live_budget"])
    # The live preset trains its own tiny model from scratch, whichever model the sidebar has loaded.
    ui.for_engineers("embedded", ["pretrain", "--preset", "live", "--max-seconds", budget, "--json", "--lang", lang])


def run_name(run: str) -> str:
    return t(f"pretrain_live.run_{run}")


def choose_experiment() -> None:
    experiments = SETTINGS["pretrain_live_experiment"].options
    experiment_column, budget_column = st.columns([2, 1])
    experiment_column.radio(
        t("pretrain_live.experiment"),
        experiments,
        format_func=lambda name: t(f"pretrain_live.experiment_{name}"),
        help=t("pretrain_live.experiment_help"),
        **keep("pretrain_live_experiment"),
    )
    budget_column.selectbox(
        t("pretrain_live.budget"),
        SETTINGS["pretrain_live_budget"].options,
        format_func=lambda seconds: t("pretrain_live.budget_value", seconds=seconds),
        **keep("pretrain_live_budget"),
    )


def start_job(job_lang: str) -> jobs.LiveJob:
    state = st.session_state
    return jobs.start(state["job_owner"], job_lang, state["pretrain_live_experiment"], state["pretrain_live_budget"])


def start_and_stop(lang: str) -> bool:
    """Start and Stop; True while the session's run is active."""
    return job_view.buttons(
        "pretrain_live_job",
        start_job,
        labels=(t("pretrain_live.start"), t("pretrain_live.stop")),
        key="pretrain_live",
        args=(lang,),
    )


def live_run(active: bool, lang: str) -> None:
    status_text = job_view.StatusText(
        queued=t("pretrain_live.queued"),
        stopped=t("pretrain_live.stopped"),
        stopped_owner=t("pretrain_live.stopped_owner"),
        failed=t("pretrain_live.failed"),
    )
    live_view = functools.partial(live_job, lang=lang, status_text=status_text)
    # a lesson step outlines this part (app.lessons)
    with st.container(key="pretrain_live_view"):
        job_view.live("pretrain_live_job", active, live_view, t("pretrain_live.no_job"))


def chart(name: str, snapshot: jobs.LiveSnapshot, lang: str, build, /, *args, **kwargs):
    """``build(*args, **kwargs)``, rebuilt only when a new evaluation came in. The page polls every second and an evaluation
    comes every few seconds; the server's cores are the training process's too, so a poll without news builds
    nothing."""
    key = (snapshot.id, lang, tuple(len(records) for records in snapshot.records.values()))
    built = st.session_state.get("pretrain_live_charts")
    if built is None or built[0] != key:
        built = (key, {})
        st.session_state["pretrain_live_charts"] = built
    if name not in built[1]:
        built[1][name] = build(*args, **kwargs)
    return built[1][name]


def live_job(snapshot: jobs.LiveSnapshot, *, lang: str, status_text: job_view.StatusText) -> None:
    """What the page polls once a second: the run's status and results, its curves, and what it guesses so far."""
    job_view.show_status(
        snapshot, status_text, running=lambda: show_running(snapshot), done=lambda: t("pretrain_live.done")
    )
    share = jobs.elapsed_share(snapshot)
    st.progress(share, text=t("pretrain_live.progress", share=share))
    names = {run: run_name(run) for run in snapshot.runs}
    latest_results(snapshot, names)
    if not any(snapshot.records.values()):
        return
    accuracy_curves(snapshot, lang, names)
    loss_curves(snapshot, lang, names)
    experiment_notes(snapshot, lang, names)
    probe_sentence(snapshot, lang)


def show_running(snapshot: jobs.LiveSnapshot) -> None:
    last = jobs.last_record(snapshot)
    if last is None:
        st.info(t("pretrain_live.starting"), icon="📦")
        return
    run = run_name(snapshot.current_run) if snapshot.current_run else ""
    text = t("pretrain_live.training", run=run, steps=last["steps"], seconds=last["seconds"], budget=snapshot.budget)
    st.info(text, icon="🏋️")


def latest_results(snapshot: jobs.LiveSnapshot, names: dict[str, str]) -> None:
    for run in snapshot.runs:
        last = jobs.last_record(snapshot, run)
        if last is not None:
            st.markdown(
                t(
                    "pretrain_live.result",
                    run=names[run],
                    top1=last["heldout_top1"],
                    baseline=last["frequency_baseline_top1"],
                    delta=100 * (last["heldout_top1"] - last["frequency_baseline_top1"]),
                    steps=last["steps"],
                )
            )


def accuracy_curves(snapshot: jobs.LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    st.subheader(t("pretrain_live.accuracy_header"))
    accuracy = chart(
        "accuracy",
        snapshot,
        lang,
        charts.accuracy_curves,
        snapshot.records,
        run_names=names,
        baseline_name=t("pretrain_live.baseline"),
        accuracy_title=t("pretrain_live.top1"),
        step_title=t("pretrain_live.step"),
    )
    ui.plot(
        accuracy,
        key="pretrain_live_accuracy",
        summary=charts.accuracy_summary(
            snapshot.records, names, t("pretrain_live.summary_accuracy"), t("pretrain_live.summary_baseline")
        ),
    )


def loss_curves(snapshot: jobs.LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    st.subheader(t("pretrain_live.loss_header"))
    loss = chart(
        "loss",
        snapshot,
        lang,
        charts.loss_curves,
        snapshot.records,
        run_names=names,
        mlm_title=t("pretrain_live.mlm_loss"),
        nsp_title=t("pretrain_live.nsp_loss"),
        step_title=t("pretrain_live.step"),
    )
    ui.plot(
        loss,
        key="pretrain_live_loss",
        summary=charts.loss_summary(snapshot.records, names, t("pretrain_live.summary_loss")),
    )


def experiment_notes(snapshot: jobs.LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    """What the chosen experiment shows: the 80/10/10 mix's accuracy by kind of target, or a word on the others."""
    if snapshot.experiment == "mask_mix":
        st.subheader(t("pretrain_live.kinds_header"))
        st.markdown(t("pretrain_live.kinds_text"))
        last_records = {run: jobs.last_record(snapshot, run) for run in snapshot.runs}
        kind_names = {kind: t(f"pretrain_live.kind_{kind}") for kind in ("masked", "kept", "random")}
        kinds = chart(
            "kinds",
            snapshot,
            lang,
            charts.target_kind_bars,
            last_records,
            run_names=names,
            kind_names=kind_names,
            accuracy_title=t("pretrain_live.kinds_accuracy"),
        )
        ui.plot(
            kinds,
            key="pretrain_live_kinds",
            summary=charts.kinds_summary(last_records, names, kind_names, t("pretrain_live.summary_kinds")),
        )
    elif snapshot.experiment == "nsp":
        st.caption(t("pretrain_live.nsp_text"))
    elif snapshot.experiment == "mask_rate":
        st.caption(t("pretrain_live.rate_text"))
    elif snapshot.experiment in VARIANTS:
        variant_finding(snapshot)


def interval(change: tuple[float, float, float]) -> str:
    mean, low, high = change
    return t("pretrain_live.interval", mean=mean, low=low, high=high)


def variant_finding(snapshot: jobs.LiveSnapshot) -> None:
    """What the variant changed, and once every run has ended, what this run measured beside three seeds' intervals."""
    variant = snapshot.experiment
    st.caption(t(f"pretrain_live.{variant}_text", **variant_facts(variant)))
    finals = {run: jobs.last_record(snapshot, run) for run in snapshot.runs}
    if not snapshot.finished or any(r is None or "heldout_span_top1" not in r for r in finals.values()):
        return
    measured = MEASURED_VARIANTS[variant][snapshot.lang]
    st.markdown(t(f"pretrain_live.{variant}_finding", **FINDINGS[variant](finals, measured)))


def variant_facts(variant: str) -> dict:
    """What a variant's description computes: ALBERT's sizes, counted from the models' shapes."""
    if variant != "albert":
        return {}
    albert = live_settings("en", **VARIANTS["albert"])
    return {
        "embedding": albert.embedding_size,
        "hidden": MODEL_SIZES["hidden_size"],
        "bert_base": count_parameters(bert_base())["total"],
        "albert_base": count_parameters(albert_base())["total"],
        "bert_tiny": parameters(live_settings("en")),
        "albert_tiny": parameters(albert),
    }


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
        "measured_single": interval(measured["span_masking"]["heldout_top1"]),
        "measured_span": interval(measured["span_masking"]["heldout_span_top1"]),
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
        "measured_static": interval(measured["static_masks"]["heldout_top1"]),
        "measured_mlm_only": interval(measured["mlm_only"]["heldout_top1"]),
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
        "measured_sop_top1": interval(measured["sentence_order"]["heldout_top1"]),
        "measured_sop_order": interval(measured["sentence_order"]["heldout_order_acc"]),
        "measured_albert_top1": interval(measured["albert"]["heldout_top1"]),
    }


FINDINGS = {"spanbert": spanbert_finding, "roberta": roberta_finding, "albert": albert_finding}


def probe_sentence(snapshot: jobs.LiveSnapshot, lang: str) -> None:
    """The latest model's top five guesses on the probe sentence, and its attention there."""
    last = jobs.last_record(snapshot)
    st.subheader(t("pretrain_live.probe_header"))
    st.caption(t("pretrain_live.probe_caption", text=PROBES[snapshot.lang]))
    probe = last["probe"]
    probe_column, attention_column = st.columns(2)
    with probe_column:
        top5 = chart(
            "probe",
            snapshot,
            lang,
            probability_bars,
            [token for token, _ in probe["top5"]],
            [p for _, p in probe["top5"]],
        )
        ui.plot(
            top5,
            key="pretrain_live_probe",
            summary=ranked_summary(
                [token for token, _ in probe["top5"]],
                [p for _, p in probe["top5"]],
                t("common.summary_most_likely"),
            ),
        )
    with attention_column:
        attention = chart(
            "attention",
            snapshot,
            lang,
            attention_map,
            probe["attention"],
            probe["tokens"],
            title=t("pretrain_live.attention_title"),
            zmax=1.0,
        )
        ui.plot(
            attention,
            key="pretrain_live_attention",
            summary=strongest_link(probe["attention"], probe["tokens"], t("common.summary_strongest_link")),
        )


def measured(run: str) -> str:
    result = MEASURED_120S[run]
    top1, baseline = result["heldout_top1"], result["frequency_baseline_top1"]
    return t(
        "pretrain_live.measured",
        steps=result["steps"],
        top1=top1,
        baseline=baseline,
        delta=100 * (top1 - baseline),
    )


def choices_and_why(lang: str) -> None:
    """The preset's sizes and settings, and why (measured two-minute runs), folded."""
    preset = live_settings(lang)
    with st.expander(t("pretrain_live.choices_heading")):
        st.caption(
            t(
                "pretrain_live.choices",
                layers=MODEL_SIZES["num_hidden_layers"],
                hidden=MODEL_SIZES["hidden_size"],
                heads=MODEL_SIZES["num_attention_heads"],
                vocab=VOCAB_SIZE,
                seq_len=preset.seq_len,
                batch=preset.batch_size,
                lr=preset.lr,
                mask_rate=preset.mask_rate,
            )
        )
        zh_rate = live_settings("zh").mask_rate
        st.caption(
            t(
                f"pretrain_live.why_{lang}",
                en_result=measured("en"),
                zh_15=measured("zh_15"),
                zh_40=measured("zh_40"),
                zh_rate=zh_rate,
                ratio=zh_rate / live_settings("en").mask_rate,  # targets per step against English's rate
            )
        )
        st.caption(t(f"pretrain_live.corpus_{lang}"))
