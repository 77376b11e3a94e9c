"""The fine-tuning lab's two-part inputs: a sentence pair (paraphrase or not, the shape of QQP and MRPC) and a
context with four endings (multiple choice, the shape of SWAG). Each is read as ``[CLS] A [SEP] B [SEP]`` with
segment ids, drawn as the NSP page draws its pair, and the student types their own."""

from __future__ import annotations

import streamlit as st

from app.core import segments, ui
from app.core.charts import probability_bars, ranked_summary
from app.core.i18n import STRINGS, t
from app.core.result_cache import CACHE_TTL
from app.finetune import jobs

ENDINGS = (1, 2, 3, 4)
# Shown when a long ending is cut to its first words in a bar's label; the input above holds it whole.
ENDING_LABEL_CHARS = 36


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def explained_pair(job_id: str, init: str, first: str, second: str, _job: jobs.Job) -> dict:
    return jobs.explain_pair(_job.trained_model(init), _job.tokenizer, first, second, _job.snapshot().labels)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def explained_choice(job_id: str, init: str, context: str, endings: tuple[str, ...], _job: jobs.Job) -> dict:
    return jobs.explain_choice(_job.trained_model(init), _job.tokenizer, context, endings)


def label_name(label: str) -> str:
    key = f"finetune.label_{label}"
    return t(key) if key in STRINGS else label


def input_strip(tokens: list[str], segment_ids: list[int], special: list[bool], title: str) -> None:
    """The pair as the model reads it: token boxes coloured by segment, as on the NSP page."""
    first_sep = next((token for token, flag in zip(tokens[1:], special[1:]) if flag), tokens[-1])
    ui.static_figure(
        segments.segment_strip(
            tokens,
            segment_ids,
            special,
            segment_labels=[t("finetune.segment_a"), t("finetune.segment_b")],
            position_label=t("finetune.position"),
            title=title,
        ),
        summary=segments.segment_summary(segment_ids, t("finetune.summary_segments"), cls=tokens[0], sep=first_sep),
    )


def try_pair(job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str) -> None:
    """Two sentences typed in, drawn with their segments, and the chosen run's verdict on them."""
    task = snapshot.task
    first_column, second_column = st.columns(2)
    first = first_column.text_input(
        t("finetune.try_first"), value=t(f"finetune.try_first_{task}"), key=f"finetune_try_first_{task}"
    )
    second = second_column.text_input(
        t("finetune.try_second"), value=t(f"finetune.try_second_{task}"), key=f"finetune_try_second_{task}"
    )
    answer = ui.run_or_explain(explained_pair, job.id, chosen, first, second, job)
    if answer is None:
        return
    if answer["truncated"]:
        st.info(t("common.truncated", limit=len(answer["tokens"])))
    layout = segments.layout_of(answer["tokens"], answer["special"])
    input_strip(answer["tokens"], answer["segments"], answer["special"], t("finetune.pair_strip_title", layout=layout))
    names, probs = jobs.ranked(answer["probs"])
    ui.plot(
        probability_bars([label_name(name) for name in names], probs, title=t("finetune.probabilities_title")),
        key="finetune_pair_probs",
        summary=ranked_summary([label_name(name) for name in names], probs, t("common.summary_most_likely")),
    )
    st.caption(t("finetune.pair_note"))


def short(text: str) -> str:
    return text if len(text) <= ENDING_LABEL_CHARS else text[: ENDING_LABEL_CHARS - 1].rstrip() + "…"


def try_endings(job: jobs.Job, snapshot: jobs.JobSnapshot, chosen: str) -> None:
    """A context and four endings typed in, and the chosen run's probability for each."""
    task = snapshot.task
    context = st.text_input(
        t("finetune.try_context"), value=t(f"finetune.try_context_{task}"), key=f"finetune_try_context_{task}"
    )
    # A row of two at a time: on a narrow screen the columns stack, and the endings must still read 1, 2, 3, 4.
    columns = [column for _ in ENDINGS[::2] for column in st.columns(2)]
    endings = tuple(
        columns[n - 1].text_input(
            t("finetune.try_ending", n=n),
            value=t(f"finetune.try_ending{n}_{task}"),
            key=f"finetune_try_ending{n}_{task}",
        )
        for n in ENDINGS
    )
    answer = ui.run_or_explain(explained_choice, job.id, chosen, context, endings, job)
    if answer is None:
        return
    if answer["truncated"]:
        st.info(t("common.truncated", limit=max(len(tokens) for tokens in answer["tokens"])))
    best = max(range(len(endings)), key=answer["probs"].__getitem__)
    names = [f"{n}. {short(ending)}" for n, ending in zip(ENDINGS, endings)]
    order = sorted(range(len(endings)), key=lambda i: -answer["probs"][i])
    ui.plot(
        probability_bars(
            [names[i] for i in order], [answer["probs"][i] for i in order], title=t("finetune.choice_title")
        ),
        key="finetune_choice_probs",
        summary=ranked_summary(
            [names[i] for i in order], [answer["probs"][i] for i in order], t("common.summary_most_likely")
        ),
    )
    st.caption(t("finetune.choice_note"))
    input_strip(
        answer["tokens"][best],
        answer["segments"][best],
        answer["special"][best],
        t(
            "finetune.choice_strip_title",
            n=best + 1,
            layout=segments.layout_of(
                answer["tokens"][best], answer["special"][best], (t("finetune.part_context"), t("finetune.part_ending"))
            ),
        ),
    )
