"""The view of a live pre-training job (``app.core.live_jobs``), for every page that runs one: Start and Stop, the
job's status and progress, each run's held-out score against the word-frequency baseline, the accuracy and loss
curves as they come, what the page says about its experiment, and the probe sentence's guesses and attention.

A page names its job with its own key (``KEY``: the session keeps the job under ``KEY_job``, the buttons are
``KEY_start`` and ``KEY_stop``) and passes what is its own: how the job starts and, below the curves, its notes on
the experiment. Strings are ``live_run.*``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from app.core import job_view, live_charts, ui
from app.core.charts import probability_bars, ranked_summary, strongest_link
from app.core.i18n import t
from app.core.live_jobs import LiveJob, LiveSnapshot, elapsed_share, last_record
from app.core.shared_charts import attention_map
from app.core.state import SETTINGS, keep
from model.training.live import PROBES

Notes = Callable[[LiveSnapshot, dict[str, str]], None]


def run_name(run: str) -> str:
    return t(f"live_run.run_{run}")


def interval(change: tuple[float, float, float]) -> str:
    mean, low, high = change
    return t("live_run.interval", mean=mean, low=low, high=high)


def choose_experiment(key: str, *, label: str, help: str, name_of: Callable[[str], str]) -> None:
    """The experiment (the page's setting ``KEY_experiment``) and the seconds per run (``KEY_budget``), side by side.
    Labels are looked up now, in this run's language: a widget's format function is also called between runs."""
    experiment_column, budget_column = st.columns([2, 1])
    names = {name: name_of(name) for name in SETTINGS[f"{key}_experiment"].options}
    experiment_column.radio(label, tuple(names), format_func=names.get, help=help, **keep(f"{key}_experiment"))
    budgets = {seconds: t("live_run.budget_value", seconds=seconds) for seconds in SETTINGS[f"{key}_budget"].options}
    budget_column.selectbox(t("live_run.budget"), tuple(budgets), format_func=budgets.get, **keep(f"{key}_budget"))


def start_and_stop(key: str, start: Callable[[], LiveJob]) -> bool:
    """Start and Stop; True while the session's job is active."""
    return job_view.buttons(f"{key}_job", start, labels=(t("live_run.start"), t("live_run.stop")), key=key)


def live_run(key: str, active: bool, lang: str, draw: Callable[..., None] | None = None) -> None:
    """The job's part of the page, polled once a second while it trains. ``draw(snapshot, lang=, status_text=)``
    draws a snapshot (default: ``pretraining``, with no notes)."""
    status_text = job_view.StatusText(
        queued=t("live_run.queued"),
        stopped=t("live_run.stopped"),
        stopped_owner=t("live_run.stopped_owner"),
        failed=t("live_run.failed"),
    )
    view = functools.partial(draw or pretraining, lang=lang, status_text=status_text)
    job_view.live(f"{key}_job", active, view, t("live_run.no_job"))


def chart(name: str, snapshot: LiveSnapshot, lang: str, build, /, *args, **kwargs):
    """``build(*args, **kwargs)``, rebuilt only when a new evaluation came in. The page polls every second and an
    evaluation comes every few seconds; the server's cores are the training process's too, so a poll without news
    builds nothing."""
    key = (snapshot.id, lang, tuple(len(records) for records in snapshot.records.values()))
    built = st.session_state.get("live_run_charts")
    if built is None or built[0] != key:
        built = (key, {})
        st.session_state["live_run_charts"] = built
    if name not in built[1]:
        built[1][name] = build(*args, **kwargs)
    return built[1][name]


def status_and_progress(snapshot: LiveSnapshot, status_text: job_view.StatusText) -> None:
    job_view.show_status(snapshot, status_text, running=lambda: show_running(snapshot), done=lambda: t("live_run.done"))
    share = elapsed_share(snapshot)
    st.progress(share, text=t("live_run.progress", share=share))


def pretraining(
    snapshot: LiveSnapshot, *, lang: str, status_text: job_view.StatusText, notes: Notes | None = None
) -> None:
    """What the page polls once a second: the run's status and results, its curves, the page's ``notes`` on the
    experiment, and what the model guesses so far."""
    status_and_progress(snapshot, status_text)
    names = {run: run_name(run) for run in snapshot.runs}
    latest_results(snapshot, names)
    if not any(snapshot.records.values()):
        return
    accuracy_curves(snapshot, lang, names)
    loss_curves(snapshot, lang, names)
    if notes is not None:
        notes(snapshot, names)
    probe_sentence(snapshot, lang)


def show_running(snapshot: LiveSnapshot) -> None:
    last = last_record(snapshot)
    if last is None:
        st.info(t("live_run.starting"), icon="📦")
        return
    if last["seconds"] >= snapshot.budget:  # the budget is spent: the run's last scores are being measured
        st.info(t("live_run.scoring"), icon="📏")
        return
    run = run_name(snapshot.current_run) if snapshot.current_run else ""
    text = t("live_run.training", run=run, steps=last["steps"], seconds=last["seconds"], budget=snapshot.budget)
    st.info(text, icon="🏋️")


def latest_results(snapshot: LiveSnapshot, names: dict[str, str]) -> None:
    """Each named run's latest held-out [MASK] top-1 against the word-frequency baseline."""
    for run in names:
        last = last_record(snapshot, run)
        if last is not None:
            st.markdown(
                t(
                    "live_run.result",
                    run=names[run],
                    top1=last["heldout_top1"],
                    baseline=last["frequency_baseline_top1"],
                    delta=100 * (last["heldout_top1"] - last["frequency_baseline_top1"]),
                    steps=last["steps"],
                )
            )


def accuracy_curves(snapshot: LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    st.subheader(t("live_run.accuracy_header"))
    accuracy = chart(
        "accuracy",
        snapshot,
        lang,
        live_charts.accuracy_curves,
        snapshot.records,
        run_names=names,
        baseline_name=t("live_run.baseline"),
        accuracy_title=t("live_run.top1"),
        step_title=t("live_run.step"),
    )
    ui.plot(
        accuracy,
        key="live_run_accuracy",
        summary=live_charts.accuracy_summary(
            snapshot.records, names, t("live_run.summary_accuracy"), t("live_run.summary_baseline")
        ),
    )


def loss_curves(snapshot: LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    st.subheader(t("live_run.loss_header"))
    loss = chart(
        "loss",
        snapshot,
        lang,
        live_charts.loss_curves,
        snapshot.records,
        run_names=names,
        mlm_title=t("live_run.mlm_loss"),
        nsp_title=t("live_run.nsp_loss"),
        step_title=t("live_run.step"),
    )
    ui.plot(
        loss,
        key="live_run_loss",
        summary=live_charts.loss_summary(snapshot.records, names, t("live_run.summary_loss")),
    )


def probe_sentence(snapshot: LiveSnapshot, lang: str) -> None:
    """The latest model's top five guesses on the probe sentence, and its attention there."""
    probe = last_record(snapshot)["probe"]
    st.subheader(t("live_run.probe_header"))
    st.caption(t("live_run.probe_caption", text=PROBES[snapshot.lang]))
    tokens, probabilities = [token for token, _ in probe["top5"]], [p for _, p in probe["top5"]]
    probe_column, attention_column = st.columns(2)
    with probe_column:
        top5 = chart("probe", snapshot, lang, probability_bars, tokens, probabilities)
        summary = ranked_summary(tokens, probabilities, t("common.summary_most_likely"))
        ui.plot(top5, key="live_run_probe", summary=summary)
    with attention_column:
        title = t("live_run.attention_title")
        attention = chart(
            "attention", snapshot, lang, attention_map, probe["attention"], probe["tokens"], title=title, zmax=1.0
        )
        summary = strongest_link(probe["attention"], probe["tokens"], t("common.summary_strongest_link"))
        ui.plot(attention, key="live_run_attention", summary=summary)
