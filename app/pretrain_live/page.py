"""Watch BERT learn: a tiny BERT pre-trained from scratch while the student watches (issue #19), and the
masking choices tested side by side rather than told: 15% vs 40%, 80/10/10 vs 100% [MASK], with and without NSP.
BERT's descendants' changes run on "BERT's family" (app.family), with the same job and view (app.core.live_view)."""

from __future__ import annotations

import streamlit as st

from app.core import live_charts, live_jobs, live_view, ui
from app.core.i18n import t
from app.core.live_jobs import LiveSnapshot
from app.core.state import PageContext
from model.training.live import MEASURED_120S, MODEL_SIZES, VOCAB_SIZE, live_settings

KEY = "pretrain_live"


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    lang = context.reads  # the language the two minutes train on

    ui.page_title(t("pretrain_live.title"), t("pretrain_live.intro"))
    live_view.choose_experiment(
        KEY,
        label=t("pretrain_live.experiment"),
        help=t("pretrain_live.experiment_help"),
        name_of=lambda name: t(f"pretrain_live.experiment_{name}"),
    )
    active = live_view.start_and_stop(KEY, lambda: start_job(lang))
    with st.container(key="pretrain_live_view"):  # a lesson step outlines this part (app.lessons)
        live_view.live_run(KEY, active, lang, draw)
    # Show, then tell: the run above, what was chosen and why below, folded.
    choices_and_why(lang)
    budget = str(st.session_state["pretrain_live_budget"])
    # The live preset trains its own tiny model from scratch, whichever model the sidebar has loaded.
    ui.for_engineers("embedded", ["pretrain", "--preset", "live", "--max-seconds", budget, "--json", "--lang", lang])


def start_job(lang: str) -> live_jobs.LiveJob:
    state = st.session_state
    return live_jobs.start(state["job_owner"], lang, state["pretrain_live_experiment"], state["pretrain_live_budget"])


def draw(snapshot: LiveSnapshot, *, lang: str, status_text) -> None:
    def notes(snapshot: LiveSnapshot, names: dict[str, str]) -> None:
        experiment_notes(snapshot, lang, names)

    live_view.pretraining(snapshot, lang=lang, status_text=status_text, notes=notes)


def experiment_notes(snapshot: LiveSnapshot, lang: str, names: dict[str, str]) -> None:
    """What the chosen experiment shows: the 80/10/10 mix's accuracy by kind of target, or a word on the others."""
    if snapshot.experiment == "mask_mix":
        st.subheader(t("pretrain_live.kinds_header"))
        st.markdown(t("pretrain_live.kinds_text"))
        last_records = {run: live_jobs.last_record(snapshot, run) for run in snapshot.runs}
        kind_names = {kind: t(f"pretrain_live.kind_{kind}") for kind in ("masked", "kept", "random")}
        kinds = live_view.chart(
            "kinds",
            snapshot,
            lang,
            live_charts.target_kind_bars,
            last_records,
            run_names=names,
            kind_names=kind_names,
            accuracy_title=t("pretrain_live.kinds_accuracy"),
        )
        ui.plot(
            kinds,
            key="pretrain_live_kinds",
            summary=live_charts.kinds_summary(last_records, names, kind_names, t("pretrain_live.summary_kinds")),
        )
    elif snapshot.experiment == "nsp":
        st.caption(t("pretrain_live.nsp_text"))
    elif snapshot.experiment == "mask_rate":
        st.caption(t("pretrain_live.rate_text"))


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
