"""Watch BERT learn: a tiny BERT pre-trained from scratch while the student watches (issue #19), and the
masking choices tested side by side rather than told: 15% vs 40%, 80/10/10 vs 100% [MASK], with and without NSP."""

from __future__ import annotations

import streamlit as st

from app.core import job_view, ui
from app.core.charts import probability_bars, ranked_summary, strongest_link
from app.core.i18n import t
from app.core.shared_charts import attention_map
from app.core.state import SETTINGS, PageContext, keep
from app.pretrain_live import charts, jobs
from model.training.live import MEASURED_120S, MODEL_SIZES, PROBES, VOCAB_SIZE, live_settings


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    lang = context.reads  # the language the two minutes train on

    st.title(t("pretrain_live.title"))
    st.markdown(t("pretrain_live.intro"))
    preset = live_settings(lang)
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
        return jobs.start(
            state["job_owner"], job_lang, state["pretrain_live_experiment"], state["pretrain_live_budget"]
        )

    active = job_view.buttons(
        "pretrain_live_job",
        start_job,
        labels=(t("pretrain_live.start"), t("pretrain_live.stop")),
        key="pretrain_live",
        args=(lang,),
    )

    def run_name(run: str) -> str:
        return t(f"pretrain_live.run_{run}")

    def show_running(snapshot: jobs.LiveSnapshot) -> None:
        last = jobs.last_record(snapshot)
        if last is None:
            st.info(t("pretrain_live.starting"), icon="📦")
            return
        run = run_name(snapshot.current_run) if snapshot.current_run else ""
        text = t(
            "pretrain_live.training", run=run, steps=last["steps"], seconds=last["seconds"], budget=snapshot.budget
        )
        st.info(text, icon="🏋️")

    status_text = job_view.StatusText(
        queued=t("pretrain_live.queued"),
        stopped=t("pretrain_live.stopped"),
        stopped_owner=t("pretrain_live.stopped_owner"),
        failed=t("pretrain_live.failed"),
    )

    def chart(name: str, snapshot: jobs.LiveSnapshot, build, *args, **kwargs):
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

    def live_view(snapshot: jobs.LiveSnapshot) -> None:
        job_view.show_status(
            snapshot, status_text, running=lambda: show_running(snapshot), done=lambda: t("pretrain_live.done")
        )
        share = jobs.elapsed_share(snapshot)
        st.progress(share, text=t("pretrain_live.progress", share=share))
        names = {run: run_name(run) for run in snapshot.runs}
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
        if not any(snapshot.records.values()):
            return
        st.subheader(t("pretrain_live.accuracy_header"))
        accuracy = chart(
            "accuracy",
            snapshot,
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
        st.subheader(t("pretrain_live.loss_header"))
        loss = chart(
            "loss",
            snapshot,
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
        if snapshot.experiment == "mask_mix":
            st.subheader(t("pretrain_live.kinds_header"))
            st.markdown(t("pretrain_live.kinds_text"))
            last_records = {run: jobs.last_record(snapshot, run) for run in snapshot.runs}
            kind_names = {kind: t(f"pretrain_live.kind_{kind}") for kind in ("masked", "kept", "random")}
            kinds = chart(
                "kinds",
                snapshot,
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
        last = jobs.last_record(snapshot)
        st.subheader(t("pretrain_live.probe_header"))
        st.caption(t("pretrain_live.probe_caption", text=PROBES[snapshot.lang]))
        probe = last["probe"]
        probe_column, attention_column = st.columns(2)
        with probe_column:
            top5 = chart(
                "probe",
                snapshot,
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

    # a lesson step outlines this part (app.lessons)
    with st.container(key="pretrain_live_view"):
        job_view.live("pretrain_live_job", active, live_view, t("pretrain_live.no_job"))

    # Show, then tell: the run above, what was chosen and why below, folded.
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
    budget = str(st.session_state["pretrain_live_budget"])
    # The live preset trains its own tiny model from scratch, whichever model the sidebar has loaded.
    ui.for_engineers("embedded", ["pretrain", "--preset", "live", "--max-seconds", budget, "--json", "--lang", lang])
