"""The fine-tuning lab's question answering (Devlin et al. 2019, section 4.2): its held-out scores against readers
without a model, and a reader to try on a held-out passage or on the student's own question and passage."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from app.core import ui
from app.core.charts import probability_bars
from app.core.i18n import t
from app.core.numbers import percent
from app.core.result_cache import CACHE_TTL
from app.finetune import jobs, qa_charts
from model.data.qa import SpanExample
from model.data.tasks import load_task
from model.training.qa import MAX_ANSWER_TOKENS

PICKED = 20  # held-out questions offered in the picker
SPAN_LABEL_CHARS = 28  # a long span's bar label is cut, or at 800 px its name leaves no room for its bar
OWN = -1  # the picker's "my own question" entry


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def explained(job_id: str, init: str, question: str, passage: str, _job: jobs.Job) -> dict:
    return jobs.explain_question(_job.trained_model(init), _job.tokenizer, question, passage)


def results(snapshot: jobs.JobSnapshot, run_name) -> None:
    """Exact match and F1 of every run on the held-out questions, beside the readers without a model."""
    st.caption(t("finetune.results_note_span", n=snapshot.heldout_size))
    columns = st.columns(len(snapshot.results))
    for column, (init, result) in zip(columns, snapshot.results.items()):
        scores = snapshot.span_scores.get(init)
        with column:
            st.markdown(f"**{run_name(init)}**")
            cells = st.columns(4)
            cells[0].metric(t("finetune.exact_match"), f"{percent(scores.exact_match, 1)}" if scores else "–")
            cells[1].metric(t("finetune.answer_f1"), f"{percent(scores.f1, 1)}" if scores else "–")
            cells[2].metric(t("finetune.steps_done"), result.steps)
            cells[3].metric(t("finetune.seconds"), f"{result.seconds:.0f}")
    readers = [
        (run_name(init), snapshot.span_scores[init]) for init in snapshot.results if init in snapshot.span_scores
    ]
    readers += [
        (t(f"finetune.baseline_{name}"), snapshot.span_scores[name])
        for name in ("alignment", "longest_entity", "random_start")
        if name in snapshot.span_scores
    ]
    names = [name for name, _ in readers]
    exact = [scores.exact_match for _, scores in readers]
    f1 = [scores.f1 for _, scores in readers]
    metric_names = (t("finetune.exact_match"), t("finetune.answer_f1"))
    ui.plot(
        qa_charts.score_bars(names, exact, f1, metric_names=metric_names, title=t("finetune.span_scores_title")),
        key="finetune_span_scores",
        summary=qa_charts.scores_summary(names, exact, f1, t("finetune.summary_span_scores")),
    )
    st.caption(t("finetune.span_baselines_note"))


@functools.cache  # one entry a QA task
def picked_examples(task: str) -> tuple[SpanExample, ...]:
    """The held-out questions the picker offers. Loading the task checks every passage against the shipped model's
    index (0.5 s of a core for qa-zh, 0.2 s for qa-en): once a process, not on each of the section's reruns."""
    return tuple(load_task(task).heldout[:PICKED])


def _pick_example(task: str) -> None:
    """The picker moved: put its question and passage in the boxes (the student may then edit them)."""
    index = st.session_state[f"finetune_qa_pick_{task}"]
    if index == OWN:
        return
    example = picked_examples(task)[index]
    st.session_state[f"finetune_qa_question_{task}"] = example.question
    st.session_state[f"finetune_qa_passage_{task}"] = example.passage


def try_reading(job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str, run_label: str) -> None:
    """Ask the fine-tuned reader: a held-out passage or the student's own, and what it answers, why, and where."""
    task = snapshot.task
    examples = picked_examples(task)
    labels = {i: e.question for i, e in enumerate(examples)} | {OWN: t("finetune.qa_own")}
    question_key, passage_key = f"finetune_qa_question_{task}", f"finetune_qa_passage_{task}"
    if question_key not in st.session_state:  # first visit: the first held-out question
        st.session_state[question_key], st.session_state[passage_key] = examples[0].question, examples[0].passage
    st.selectbox(
        t("finetune.qa_pick"),
        list(labels),
        format_func=labels.get,
        key=f"finetune_qa_pick_{task}",
        on_change=_pick_example,
        args=(task,),
    )
    question = st.text_input(t("finetune.qa_question"), key=question_key, max_chars=300)
    passage = st.text_area(t("finetune.qa_passage"), key=passage_key, max_chars=2000, height=110)
    result = ui.run_or_explain(explained, job.id, chosen, question, passage, job)
    if result is None:
        return
    if result["truncated"]:
        st.info(t("finetune.qa_truncated", limit=len(result["tokens"])))
    spans = result["spans"]
    passage_positions = result["passage_tokens"]
    start_probs, end_probs = np.asarray(result["start_probs"]), np.asarray(result["end_probs"])
    span_probs = [float(start_probs[s["start"]] * end_probs[s["end"]]) for s in spans]
    best = spans[0]
    tokens = result["tokens"]
    ui.static_figure(
        qa_charts.answer_in_passage(passage, *best["chars"], title=t("finetune.qa_answer_title", run=run_label)),
        qa_charts.spans_summary(
            [(s["text"], p) for s, p in zip(spans, span_probs)],
            t("finetune.summary_spans"),
            t("finetune.summary_spans_none"),
        ),
    )
    ui.plot(
        probability_bars([_label(s["text"]) for s in spans], span_probs, title=t("finetune.qa_top_spans")),
        key="finetune_qa_spans",
        summary=t("finetune.qa_top_spans_note", tokens=MAX_ANSWER_TOKENS),
    )
    ui.plot(
        qa_charts.start_end_rows(
            [tokens[i] for i in passage_positions],
            start_probs[passage_positions],
            end_probs[passage_positions],
            row_names=(t("finetune.qa_start"), t("finetune.qa_end")),
            chosen=(passage_positions.index(best["start"]), passage_positions.index(best["end"])),
            title=t("finetune.qa_rows_title"),
        ),
        key="finetune_qa_rows",
        summary=t(
            "finetune.summary_rows",
            start=tokens[best["start"]],
            p_start=float(start_probs[best["start"]]),
            end=tokens[best["end"]],
            p_end=float(end_probs[best["end"]]),
        ),
    )
    question_positions = result["question_tokens"]
    if question_positions:
        matrix = np.asarray(result["attention"])[np.ix_(question_positions, passage_positions)]
        question_tokens = [tokens[i] for i in question_positions]
        passage_tokens = [tokens[i] for i in passage_positions]
        st.caption(t("finetune.qa_attention_note"))
        ui.plot(
            qa_charts.question_attention(
                matrix, question_tokens, passage_tokens, title=t("finetune.qa_attention_title")
            ),
            key="finetune_qa_attention",
            summary=qa_charts.attention_summary(
                matrix, question_tokens, passage_tokens, t("finetune.summary_qa_attention")
            ),
        )


def _label(text: str) -> str:
    """A span's name beside its bar; the summary under the chart gives it whole."""
    if not text:
        return "∅"
    return text if len(text) <= SPAN_LABEL_CHARS else text[: SPAN_LABEL_CHARS - 1] + "…"


__all__ = ["explained", "results", "try_reading"]
