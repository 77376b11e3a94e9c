"""Fine-tuning lab: the "small step" of pre-train + fine-tune (Devlin et al. 2019, section 3.2): add a head, train on a little
labelled data, watch the curves live, score held-out data, try a sentence, see [CLS]'s attention move."""

from __future__ import annotations

import functools

import streamlit as st

from app.core import job_view, models, ui
from app.core.charts import probability_bars, ranked_summary
from app.core.i18n import t
from app.core.numbers import percent
from app.core.palette import BLUE, GREEN, ORANGE, PURPLE, SKY, VERMILLION
from app.core.result_cache import CACHE_TTL
from app.core.shared_charts import share_decimals
from app.core.state import SETTINGS, PageContext, keep, start_in_language
from app.core.tokens import escape_markdown
from app.core.word_shares import show_word_shares
from app.finetune import charts, jobs, pair_view, qa_view
from model.analysis import attribution
from model.data.tasks import NER_LABELS, TASKS
from model.results import TokenAttributions
from model.training.qa import SPAN_MAX_LENGTH


# Keyed by the job, so that typing elsewhere on the page does not redo a 512-token forward pass.
@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def explained(job_id: str, init: str, text: str, _job: jobs.Job) -> dict:
    return jobs.explain(_job.trained_model(init), _job.tokenizer, text, _job.snapshot().labels)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def word_shares(job_id: str, init: str, text: str, _job: jobs.Job) -> TokenAttributions:
    model, labels = _job.trained_model(init), _job.snapshot().labels
    return attribution.classifier_integrated_gradients(model, _job.tokenizer, text, labels)


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    # A reader's first visit opens on a task in their language (the first such task), unless a link chose one.
    start_in_language(
        "finetune", {"finetune_task": next(n for n, task in TASKS.items() if task["language"] == context.reads)}
    )
    hidden, layer_count = context.bundle.config.hidden_size, context.bundle.config.num_hidden_layers
    intro(hidden)
    # --- 1. set-up
    task = choose_task()
    describe_task(task, hidden)
    training_settings(task)
    encoder_settings(layer_count)
    job: jobs.Job | None = job_view.current(models.SESSION_MODELS)
    active = start_and_stop(context)
    # --- 2. live progress
    live_progress(active, layer_count)
    if job is None:
        st.stop()
    snapshot = job.snapshot()
    if not snapshot.finished or not snapshot.results:
        st.stop()
    # --- 3. held-out results
    heldout_results(snapshot)
    how_far_the_layers_moved(snapshot, layer_count)
    model_downloads(job, snapshot)
    # --- 4. try a sentence
    chosen = model_to_try(job, snapshot)
    if snapshot.kind in OWN_INPUTS:  # a question and its passage, a pair, four endings: each its own section
        OWN_INPUTS[snapshot.kind](job, snapshot, chosen)
        st.stop()
    text, answer = try_sentence(job, snapshot, chosen)
    if snapshot.kind == "sequence":
        which_words_decided(job, chosen, text)
    cls_attention_before_and_after(job, snapshot, chosen, text, answer)


label_name = pair_view.label_name


def try_question(job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str) -> None:
    qa_view.try_reading(job, snapshot, chosen, run_labels()[chosen])


# The tasks whose input is more than one sentence, and the section that takes the student's own.
OWN_INPUTS = {"span": try_question, "pair": pair_view.try_pair, "choice": pair_view.try_endings}
# How a task built without human labels was made, by kind.
HOW_MADE = {"span": "finetune.qa_how_made", "pair": "finetune.pair_how_made", "choice": "finetune.choice_how_made"}
TRY_HEADER = {
    "span": "finetune.try_header_span",
    "pair": "finetune.try_header_pair",
    "choice": "finetune.try_header_choice",
}
# What the dashed lines of the live curves are, by kind.
BASELINES_NOTE = {
    "span": "finetune.baselines_note_span",
    "pair": "finetune.baselines_note_pair",
    "choice": "finetune.baselines_note_choice",
}


def run_name(init: str) -> str:
    return t(f"finetune.init_{init}")


def run_labels() -> dict[str, str]:
    # A plain dict for the labels: a format_func must not read the session (AppTest calls it outside a run).
    return {init: run_name(init) for init in (*jobs.INITS, jobs.FROZEN)}


def baseline_name(task_name: str, key: str) -> str:
    """ "majority class", or "bag of characters" (words, for an English task)."""
    if key == "bag_of_characters":
        return t(f"finetune.baseline_bag_{TASKS[task_name]['language']}")
    return t(f"finetune.baseline_{key}")


def part_name(part: str) -> str:
    if part.startswith("layer "):
        return t("finetune.layer_part_layer", n=part.split()[1])
    return t(f"finetune.layer_part_{part}")


def intro(hidden: int) -> None:
    ui.page_title(t("finetune.title"), t("finetune.intro"))
    ui.stages_figure([t("finetune.paradigm"), t("finetune.paradigm_finetune")], [BLUE, ORANGE], carry=True)
    ui.stages_figure([t("finetune.examples", hidden=hidden)], [BLUE, GREEN, PURPLE, VERMILLION, SKY])
    st.caption(t("finetune.examples_note", hidden=hidden, n_tags=len(NER_LABELS)))


# --- 1. set-up --------------------------------------------------------------------------------------------------


def choose_task() -> str:
    # a lesson step outlines this part (app.lessons)
    with st.container(key="finetune_setup"):
        st.subheader(t("finetune.setup_header"))
        task_labels = {name: t(f"finetune.task_{name}") for name in TASKS}
        return st.selectbox(t("finetune.task"), tuple(TASKS), format_func=task_labels.get, **keep("finetune_task"))


def describe_task(task: str, hidden: int) -> None:
    info = TASKS[task]
    head_labels = TASKS[task]["labels"]
    head_key = f"finetune.head_{info['kind']}"
    st.markdown(
        f"{t(f'finetune.about_{task}')}  \n`{t(head_key, hidden=hidden, n=len(head_labels), labels=' / '.join(map(label_name, head_labels)))}`"
    )
    if info["kind"] in HOW_MADE:
        st.caption(t(HOW_MADE[info["kind"]]))
    st.caption(t("finetune.licence", licence=t(f"finetune.licence_{task}")))


def training_settings(task: str) -> None:
    size_column, optimiser_column, budget_column = st.columns(3)
    size, epochs = SETTINGS["finetune_size"], SETTINGS["finetune_epochs"]
    with size_column:
        st.slider(t("finetune.train_size"), size.low, size.high, step=100, **keep("finetune_size"))
        st.slider(t("finetune.epochs"), epochs.low, epochs.high, **keep("finetune_epochs"))
    with optimiser_column:
        st.selectbox(
            t("finetune.lr"),
            SETTINGS["finetune_lr"].options,
            format_func="{:g}".format,
            help=t("finetune.lr_help", lr=f"{SETTINGS['finetune_lr'].default:g}"),
            **keep("finetune_lr"),
        )
        st.radio(
            t("finetune.batch_size"), SETTINGS["finetune_batch"].options, horizontal=True, **keep("finetune_batch")
        )
    with budget_column:
        if TASKS[task]["kind"] == "span":
            st.caption(t("finetune.max_length_span", n=SPAN_MAX_LENGTH))
        else:
            st.radio(
                t("finetune.max_length"),
                SETTINGS["finetune_max_length"].options,
                horizontal=True,
                **keep("finetune_max_length"),
            )
        budgets = SETTINGS["finetune_budget"].options
        budget_labels = {seconds: t("finetune.budget_value", seconds=seconds) for seconds in budgets}
        st.selectbox(
            t("finetune.budget"),
            budgets,
            format_func=budget_labels.get,
            help=t("finetune.budget_help"),
            **keep("finetune_budget"),
        )


def encoder_settings(layer_count: int) -> None:
    """How much of the encoder trains, and which runs: from the pre-trained weights, from random ones, compared."""
    frozen = st.toggle(
        t("finetune.freeze"),
        help=t("finetune.freeze_help"),
        disabled=st.session_state.get("finetune_compare_frozen", False),  # that comparison trains both ways
        **keep("finetune_freeze"),
    )
    if layer_count > 1:  # a slider needs two ends; a one-layer model trains its layer either way
        st.session_state["finetune_layers"] = min(st.session_state["finetune_layers"], layer_count)
        st.slider(
            t("finetune.trained_layers"),
            1,
            layer_count,
            help=t("finetune.trained_layers_help", total=layer_count),
            disabled=frozen and not st.session_state.get("finetune_compare_frozen", False),
            **keep("finetune_layers"),
        )
    compare = st.checkbox(t("finetune.compare"), help=t("finetune.compare_help"), **keep("finetune_compare"))
    compare_frozen = st.checkbox(
        t("finetune.compare_frozen"), help=t("finetune.compare_frozen_help"), **keep("finetune_compare_frozen")
    )
    st.radio(
        t("finetune.init"),
        jobs.INITS,
        format_func=run_labels().get,
        horizontal=True,
        disabled=compare or compare_frozen,
        **keep("finetune_init"),
    )


def start_job(base, base_spec: str) -> jobs.Job:
    state = st.session_state
    settings = jobs.page_settings(state)
    comparison = {
        (True, False): jobs.COMPARE,
        (False, True): "compare-frozen",
        (True, True): "compare-all",
    }.get((state["finetune_compare"], state["finetune_compare_frozen"]))
    init = comparison or state["finetune_init"]
    return jobs.start(
        state["job_owner"], base, state["finetune_task"], settings, init, state["finetune_size"], base_spec
    )


def start_and_stop(context: PageContext) -> bool:
    """Start and Stop; True while the session's job is active."""
    # A new run would replace the very model it starts from (a session keeps one job): start from a pre-trained one.
    from_finetuned = context.spec.startswith(models.FINETUNED_PREFIX)
    if from_finetuned:
        st.info(t("finetune.start_from_pretrained"))
    active = job_view.buttons(
        models.SESSION_MODELS,
        start_job,
        labels=(t("finetune.start"), t("finetune.stop")),
        key="finetune",
        args=(context.bundle, context.spec),
        start_disabled=from_finetuned,
    )
    st.caption(t("finetune.copy_note"))
    return active


# --- 2. live progress -------------------------------------------------------------------------------------------


def live_progress(active: bool, layer_count: int) -> None:
    st.subheader(t("finetune.progress_header"))
    status_text = job_view.StatusText(
        queued=t("finetune.queued"),
        stopped=t("finetune.stopped"),
        stopped_owner=t("finetune.stopped_owner"),
        failed=t("finetune.failed"),
    )
    live_view = functools.partial(live_job, status_text=status_text, layer_count=layer_count)
    job_view.live(models.SESSION_MODELS, active, live_view, t("finetune.no_job"))


def live_job(snapshot: jobs.JobSnapshot, *, status_text: job_view.StatusText, layer_count: int) -> None:
    """What the page polls once a second: the run's settings, its status, its progress and its curves."""
    st.caption(describe_settings(snapshot, layer_count))
    show_status(snapshot, status_text)
    share = jobs.progress(snapshot)
    st.progress(share, text=t("finetune.progress", share=share))
    if snapshot.history:
        training_curves(snapshot)
        if snapshot.baselines:
            st.caption(t(BASELINES_NOTE.get(snapshot.kind, "finetune.baselines_note")))


def encoder_training(s, layer_count: int) -> str:
    """How much of the encoder a run trains: none of it, its top layers, or all of it."""
    if s.freeze_encoder:
        return t("finetune.frozen_yes")
    if s.trained_layers is not None and s.trained_layers < layer_count:
        return t("finetune.frozen_below", n=s.trained_layers, total=layer_count)
    return t("finetune.frozen_no")


def describe_settings(snapshot: jobs.JobSnapshot, layer_count: int) -> str:
    s = snapshot.settings
    return t(
        "finetune.run_settings",
        task=snapshot.task,
        size=snapshot.train_size or "…",
        epochs=s.epochs,
        lr=f"{s.lr:g}",
        batch=s.batch_size,
        max_length=s.max_length,
        frozen=encoder_training(s, layer_count),
        budget=f"{s.max_seconds:g}",
    )


def show_running(snapshot: jobs.JobSnapshot) -> None:
    run = run_name(snapshot.current_init) if snapshot.current_init else ""
    if snapshot.phase == "evaluating":
        st.info(t("finetune.evaluating", run=run, n=snapshot.heldout_size), icon="🧮")
    elif snapshot.phase == "training":
        last = jobs.last_step(snapshot, snapshot.current_init) or {"step": 0, "seconds": 0}
        st.info(
            t(
                "finetune.training",
                run=run,
                step=last["step"],
                seconds=last["seconds"],
                total=jobs.steps_per_run(snapshot.train_size, snapshot.settings),
            ),
            icon="🏋️",
        )
    else:
        st.info(t("finetune.loading"), icon="📦")


def done_text(snapshot: jobs.JobSnapshot) -> str:
    training, total = jobs.time_figures(snapshot)
    if total is None:
        return t("finetune.done", training=training)
    return t("finetune.done_total", training=training, total=total)


def show_status(snapshot: jobs.JobSnapshot, status_text: job_view.StatusText) -> None:
    job_view.show_status(
        snapshot, status_text, running=lambda: show_running(snapshot), done=lambda: done_text(snapshot)
    )
    for init, result in snapshot.results.items():
        if result.stopped and snapshot.stop_reason is None:
            st.caption(
                t(
                    "finetune.budget_reached",
                    run=run_name(init),
                    steps=result.steps,
                    total=jobs.steps_per_run(snapshot.train_size, snapshot.settings),
                )
            )


def training_curves(snapshot: jobs.JobSnapshot) -> None:
    run_names = {i: run_name(i) for i in snapshot.inits}
    heldout = {init: result.evaluation.accuracy for init, result in snapshot.results.items()}
    # A reader's held-out mark is its exact match, the figure its results give, once it is scored.
    heldout |= {init: scores.exact_match for init, scores in snapshot.span_scores.items() if init in heldout}
    ui.plot(
        charts.training_curves(
            snapshot.history,
            run_names=run_names,
            loss_title=t("finetune.loss"),
            accuracy_title=t("finetune.accuracy"),
            step_title=t("finetune.step"),
            title=t("finetune.curves_title"),
            baselines={baseline_name(snapshot.task, key): value for key, value in snapshot.baselines.items()},
            heldout=heldout,
            heldout_name=t("finetune.heldout_marker"),
        ),
        key="finetune_curves",
        summary=charts.curves_summary(
            snapshot.history, run_names, t("finetune.summary_curves"), heldout, t("finetune.summary_heldout")
        ),
    )


# --- 3. held-out results ----------------------------------------------------------------------------------------


def heldout_results(snapshot: jobs.JobSnapshot) -> None:
    st.subheader(t("finetune.results_header"))
    labels = list(snapshot.labels)
    if snapshot.kind == "span":
        qa_view.results(snapshot, run_name)
    elif snapshot.kind == "token":
        st.caption(t("finetune.results_note_token"))
    elif snapshot.kind == "pair":
        st.caption(
            t(
                "finetune.results_note_pair",
                chance=snapshot.baselines["majority"],
                overlap=snapshot.baselines["word_overlap"],
            )
        )
    elif snapshot.kind == "choice":
        st.caption(
            t(
                "finetune.results_note_choice",
                chance=snapshot.baselines["chance"],
                shared=snapshot.baselines["most_shared_words"],
            )
        )
    else:
        st.caption(
            t(
                "finetune.results_note",
                chance=snapshot.baselines["majority"],
                bag=snapshot.baselines["bag_of_characters"],
                bag_name=baseline_name(snapshot.task, "bag_of_characters"),
            )
        )
    result_columns = st.columns(len(snapshot.results)) if snapshot.kind != "span" else []
    for column, (init, result) in zip(result_columns, snapshot.results.items()):
        with column:
            run_result(init, result, labels)
    st.caption(t("finetune.download_history"))
    ui.download_buttons("finetune_history", lambda: jobs.history_rows(snapshot.history), key="finetune_history")


def run_result(init: str, result, labels: list[str]) -> None:
    st.markdown(f"**{run_name(init)}**")
    metric_columns = st.columns(4 if result.evaluation.f1 is not None else 3)
    metric_columns[0].metric(t("finetune.heldout_accuracy"), f"{percent(result.evaluation.accuracy, 1)}")
    if result.evaluation.f1 is not None:
        metric_columns[-3].metric(t("finetune.entity_f1"), f"{percent(result.evaluation.f1, 1)}")
    metric_columns[-2].metric(t("finetune.steps_done"), result.steps)
    metric_columns[-1].metric(t("finetune.seconds"), f"{result.seconds:.0f}")
    ui.plot(
        charts.confusion_heatmap(
            jobs.row_shares(result.evaluation.confusion),
            result.evaluation.confusion,
            [label_name(label) for label in labels],
            true_title=t("finetune.true_label"),
            predicted_title=t("finetune.predicted_label"),
            title=t("finetune.confusion_title", run=run_name(init)),
        ),
        key=f"finetune_confusion_{init}",
        summary=charts.confusion_summary(
            result.evaluation.confusion,
            [label_name(label) for label in labels],
            t("finetune.summary_confusion"),
            t("finetune.summary_confusion_none"),
        ),
    )
    st.caption(t("finetune.download_confusion", run=run_name(init)))
    table = jobs.confusion_rows(result.evaluation, labels, t("finetune.confusion_corner"))  # a few cells
    ui.download_buttons(f"finetune_confusion_{init}", lambda table=table: table, key=f"finetune_confusion_{init}")


def how_far_the_layers_moved(snapshot: jobs.JobSnapshot, layer_count: int) -> None:
    if "pretrained" not in snapshot.layer_changes:
        return
    st.subheader(t("finetune.layers_header"))
    st.caption(t("finetune.layers_note"))
    trained = snapshot.settings.trained_layers
    if trained is not None and trained < layer_count:
        st.caption(t("finetune.layers_frozen_note", n=trained, total=layer_count))
    changes = snapshot.layer_changes["pretrained"]
    ui.plot(
        charts.layer_change_bars(
            {"pretrained": changes},
            part_names=[part_name(p) for p in changes],
            run_names={"pretrained": run_name("pretrained")},
            axis_title=t("finetune.layers_axis"),
            title=t("finetune.layers_title"),
        ),
        key="finetune_layers",
        summary=charts.layer_change_summary(changes, [part_name(p) for p in changes], t("finetune.summary_layers")),
    )
    st.caption(t("finetune.download_layers"))
    ui.download_buttons(
        "finetune_layer_changes",
        lambda: (["part", "relative_change"], [[part, round(value, 6)] for part, value in changes.items()]),
        lambda: changes,
        key="finetune_layer_changes",
    )


def model_downloads(job: jobs.Job, snapshot: jobs.JobSnapshot) -> None:
    st.caption(t("finetune.download_model_note"))
    model_columns = st.columns(len(snapshot.results))
    for column, init in zip(model_columns, snapshot.results):
        if job.trained_model(init) is not None:
            column.download_button(
                t("finetune.download_model", run=run_name(init)),
                # Called only on a click (a zipped copy of the model is tens of MB), in a thread of its own.
                data=lambda init=init: jobs.model_zip(job.trained_model(init), job.tokenizer),
                file_name=f"bert-lab-{snapshot.task}-{init}.zip",
                mime="application/zip",
                on_click="ignore",
                key=f"finetune_model_zip_{init}",
            )


# --- 4. try a sentence ------------------------------------------------------------------------------------------


def model_to_try(job: jobs.Job, snapshot: jobs.JobSnapshot) -> str:
    """The trained run to try (the page stops when there is none)."""
    st.subheader(t(TRY_HEADER.get(snapshot.kind, "finetune.try_header")))
    trained = [init for init in snapshot.inits if job.trained_model(init) is not None]
    if not trained:
        st.stop()
    chosen = trained[0]
    if len(trained) > 1:
        chosen = st.radio(
            t("finetune.try_model"), trained, format_func=run_labels().get, horizontal=True, key="finetune_try_model"
        )
    return chosen


def try_sentence(job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str) -> tuple[str, dict]:
    """A sentence typed in, and the chosen run's tags or label for it (the page stops while there is none)."""
    text = st.text_input(
        t("finetune.try_input"), value=t(f"finetune.try_default_{snapshot.task}"), key=f"finetune_try_{snapshot.task}"
    )
    answer = ui.run_or_explain(explained, job.id, chosen, text, job)
    if answer is None:
        st.stop()
    if answer["truncated"]:
        st.info(t("common.truncated", limit=len(answer["tokens"])))
    if snapshot.kind == "token":
        ui.static_figure(
            charts.tag_strip(
                answer["tokens"], answer["tags"], answer["tag_probs"], answer["special"], title=t("finetune.tags_title")
            ),
            charts.tags_summary(
                answer["tokens"],
                answer["tags"],
                answer["special"],
                t("finetune.summary_tags"),
                t("finetune.summary_tags_none"),
            ),
        )
    else:
        names, probs = jobs.ranked(answer["probs"])
        ui.plot(
            probability_bars([label_name(name) for name in names], probs, title=t("finetune.probabilities_title")),
            key="finetune_probs",
            summary=ranked_summary([label_name(name) for name in names], probs, t("common.summary_most_likely")),
        )
    return text, answer


def which_words_decided(job: jobs.Job, chosen: str, text: str) -> None:
    """Integrated gradients for the label the chosen run gives ``text``, on request, beside gradient × input."""
    st.markdown(f"**{t('finetune.ig_heading')}**")
    if not st.toggle(t("finetune.ig_toggle"), **keep("finetune_word_shares")):
        return
    result = ui.run_or_explain(word_shares, job.id, chosen, text, job)
    if result is None:
        return
    label = escape_markdown(label_name(result.answer.token))
    d = share_decimals(result)
    st.markdown(t("finetune.ig_lead", label=label, start=f"{result.start:.{d}f}", end=f"{result.end:.{d}f}"))
    show_word_shares(
        result,
        answer=label_name(result.answer.token),
        title=t("finetune.ig_title"),
        axis_title=t("finetune.ig_axis"),
        summary=t("finetune.ig_summary"),
        note=t("finetune.ig_note"),
        key="finetune_ig",
    )


def cls_attention_before_and_after(
    job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str, text: str, answer: dict
) -> None:
    """What [CLS] attends to in the base model and in the fine-tuned one (the page stops where they differ)."""
    st.markdown(f"**{t('finetune.attention_header')}**")
    st.caption(t("finetune.attention_note_token" if snapshot.kind == "token" else "finetune.attention_note"))
    before = ui.run_or_explain(models.attention, job.base_spec, text)
    if before is None:
        st.stop()
    if before.tokens != answer["attention_tokens"]:
        st.info(t("finetune.tokens_differ"))
        st.stop()
    ui.plot(
        charts.cls_attention_bars(
            before.tokens,
            jobs.cls_row(before.attentions),
            answer["cls_attention"],
            before_name=t("finetune.before"),
            after_name=t("finetune.after", run=run_name(chosen)),
            title=t("finetune.attention_title"),
        ),
        key="finetune_cls_attention",
        summary=charts.cls_attention_summary(
            before.tokens, jobs.cls_row(before.attentions), answer["cls_attention"], t("finetune.summary_cls")
        ),
    )
