"""From BERT to sentence vectors (issue #43): raw [CLS] and mean-pooled vectors are poor sentence vectors (their
anisotropy), Sentence-BERT's MiniLM is a trained answer, and the reader trains one contrastively in a minute
(Reimers & Gurevych 2019, 2020; Karpukhin et al. 2020)."""

from __future__ import annotations

import re

import streamlit as st

from app.core import job_view, ui
from app.core.i18n import t
from app.core.state import SETTINGS, PageContext, keep
from app.sentence_vectors import charts, jobs, logic
from model.analysis.sentence_vectors import MAX_TOKENS, POOLINGS
from model.data.translation_pairs import load_pool, load_train
from model.training.contrastive import ContrastiveSettings

JOB = "sentence_vectors_job"
WAYS = (*POOLINGS, logic.MINILM, logic.TRAINED)
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    stride = logic.pool_stride(context.spec)
    pairs = len(load_pool(stride))
    stride_note = t("sentence_vectors.pool_stride", stride=stride, pool=len(load_pool())) if stride > 1 else None
    ui.page_title(t("sentence_vectors.title"), t("sentence_vectors.lead", pairs=pairs), stride_note)
    with st.spinner():
        vectors = dict(logic.raw_pool_vectors(context.spec))
        minilm = logic.minilm_bundle()
        if minilm is not None:
            vectors[logic.MINILM] = logic.minilm_pool_vectors(minilm, stride)
    job = job_view.current(JOB)
    trained = job.trained_model() if job is not None else None
    if trained is not None:
        vectors[logic.TRAINED] = logic.trained_pool_vectors(job.id, trained, job.tokenizer, job.stride)
    figures = logic.cached_figures(f"{context.spec}|{minilm is not None}|{job.id if trained else ''}", vectors)
    _figures(figures, pairs)
    text, side = neighbours(context, vectors, minilm, stride)
    _training(context, text, side, vectors, pairs)
    explanations(pairs)


def neighbours(context: PageContext, vectors: dict, minilm, stride: int) -> tuple[str, str]:
    """The sentence's nearest held-out sentences by each way; returns the sentence and the side searched."""
    bundle = context.bundle
    st.subheader(t("sentence_vectors.neighbours_header"))
    side_labels = {side: t(f"sentence_vectors.side_{side}") for side in SETTINGS["sentence_vectors_side"].options}
    side = st.radio(
        t("sentence_vectors.side"),
        tuple(side_labels),
        format_func=side_labels.get,
        horizontal=True,
        **keep("sentence_vectors_side"),
    )
    text = context.text.strip()
    if not text:
        st.info(t("sentence_vectors.empty"))
        return text, side
    _query_notes(bundle, text)
    found = logic.search(
        f"raw:{context.spec}", bundle, bundle.tokenizer, text, {p: vectors[p] for p in POOLINGS}, side, stride
    )
    columns = st.columns(3)
    for column, way in zip(columns, POOLINGS, strict=False):
        _hits(column, way, found[way], side)
    column = columns[2]
    if minilm is None:
        column.markdown(f"**{t('sentence_vectors.way_minilm')}**")
        column.warning(t("sentence_vectors.minilm_missing"))
        ui.preformatted(logic.MINILM_COMMAND, column)  # wrapped, not a scrolled region
    else:
        english = {"mean": vectors[logic.MINILM]}
        hits = logic.search(f"minilm:{minilm.path}", minilm, minilm.tokenizer, text, english, "en", stride)
        _hits(column, logic.MINILM, hits["mean"], "en")
        if CJK.search(text):
            column.caption(t("sentence_vectors.minilm_cannot_read"))
        column.caption(t("sentence_vectors.minilm_english"))
    return text, side


def explanations(pairs: int) -> None:
    """Folded: why raw vectors fail, the data, the papers and the command line."""
    with st.expander(t("sentence_vectors.why_header")):
        st.markdown(t("sentence_vectors.why"))
    with st.expander(t("sentence_vectors.data_header")):
        st.markdown(t("sentence_vectors.data", pairs=pairs, train=len(load_train())))
    with st.expander(t("sentence_vectors.references_header")):
        st.markdown(t("sentence_vectors.references"))
    with st.expander(t("sentence_vectors.cli_header")):
        st.markdown(t("sentence_vectors.cli"))
        seconds = st.session_state["sentence_vectors_budget"]
        # A wrapped block, not st.code's scrolled one: a scrolling region a keyboard cannot reach (axe-core's rule).
        ui.preformatted(
            f'python -m model sentence-vectors "{t("sentence_vectors.cli_example")}"\n'
            f"python -m model sentence-vectors --train-seconds {seconds} --json\n"
            "python bench/bench_sentence_vectors.py"
        )


def _figures(figures: dict[str, dict[str, float]], pairs: int) -> None:
    """The first figure: recall@1 and the random-pair cosine of every way there is, and what they say."""
    ways = [way for way in WAYS if way in figures]
    labels = [t(f"sentence_vectors.way_{way}") for way in ways]
    recall = [figures[w]["recall_at_1"] for w in ways]
    cosine_en = [figures[w]["cosine_en"] for w in ways]
    cosine_zh = [None if w == logic.MINILM else figures[w]["cosine_zh"] for w in ways]
    ui.plot(
        charts.pooling_bars(
            labels,
            recall,
            cosine_en,
            cosine_zh,
            recall_title=t("sentence_vectors.recall_panel"),
            cosine_title=t("sentence_vectors.cosine_panel"),
            recall_name=t("sentence_vectors.recall_name"),
            en_name=t("sentence_vectors.en_name"),
            zh_name=t("sentence_vectors.zh_name"),
            title=t("sentence_vectors.chart_title", pairs=pairs),
        ),
        key="sentence_vectors_bars",
        summary=charts.pooling_summary(labels, recall, cosine_en, t("sentence_vectors.summary_bars")),
    )
    cls, mean = figures["cls"], figures["mean"]
    st.markdown(
        t(
            "sentence_vectors.figures_read",
            cls=cls["recall_at_1"],
            mean=mean["recall_at_1"],
            chance=1 / pairs,
            cls_cos=cls["cosine_en"],
            mean_cos=mean["cosine_en"],
        )
    )
    if logic.MINILM in figures:
        minilm = figures[logic.MINILM]
        st.caption(t("sentence_vectors.minilm_read", cos=minilm["cosine_en"], recall=minilm["recall_at_1"]))


def _query_notes(bundle, text: str) -> None:
    """What the reader should know about their sentence before its neighbours: cut, or mostly unknown pieces."""
    if logic.is_truncated(bundle, text):
        st.info(t("sentence_vectors.truncated", limit=MAX_TOKENS))
    pieces = bundle.tokenizer.tokenize(text[:2000])
    unknown = sum(piece == "[UNK]" for piece in pieces)
    if pieces and unknown / len(pieces) > 0.5:
        st.info(t("sentence_vectors.unknown"))


def _hits(column, way: str, hits: list[logic.Hit], side: str) -> None:
    column.markdown(f"**{t(f'sentence_vectors.way_{way}')}**")
    # The cosine first: a narrow column cuts the last, and a sentence can be read when cut.
    rows = {t("sentence_vectors.col_cosine"): [round(h.cosine, 3) for h in hits]}
    if side == "both":
        rows[t("sentence_vectors.col_lang")] = [h.lang for h in hits]
    rows[t("sentence_vectors.col_sentence")] = [h.text for h in hits]
    column.dataframe(rows, hide_index=True, width="stretch")


def _training(context: PageContext, text: str, side: str, vectors: dict, pairs: int) -> None:
    """Train one live: the buttons, the recall curve while it trains, then the trained model's neighbours."""
    st.subheader(t("sentence_vectors.train_header"))
    settings = ContrastiveSettings()
    st.markdown(
        t(
            "sentence_vectors.train_lead",
            train=len(load_train()),
            negatives=settings.batch_size - 1,
            every=settings.eval_every,
        )
    )
    st.selectbox(
        t("sentence_vectors.budget"),
        SETTINGS["sentence_vectors_budget"].options,
        format_func=lambda seconds: t("sentence_vectors.budget_value", seconds=seconds),
        **keep("sentence_vectors_budget"),
    )

    def start_job():
        state = st.session_state
        return jobs.start(state["job_owner"], context.bundle, context.spec, state["sentence_vectors_budget"])

    active = job_view.buttons(JOB, start_job, labels=(t("sentence_vectors.start"), t("sentence_vectors.stop")), key=JOB)
    status_text = job_view.StatusText(
        queued=t("sentence_vectors.queued"),
        stopped=t("sentence_vectors.stopped"),
        stopped_owner=t("sentence_vectors.stopped_owner"),
        failed=t("sentence_vectors.failed"),
    )
    cls_recall = logic.cached_figures(f"{context.spec}|cls", {"cls": vectors["cls"]})["cls"]["recall_at_1"]

    def live_view(snapshot: jobs.ContrastiveSnapshot) -> None:
        evaluations = snapshot.evaluations
        job_view.show_status(
            snapshot, status_text, running=lambda: _running(snapshot), done=lambda: _done(snapshot, evaluations)
        )
        if not evaluations:
            return
        steps = [e["step"] for e in evaluations]
        recall_1 = [e["recall_at_1"] for e in evaluations]
        ui.plot(
            charts.recall_curve(
                steps,
                recall_1,
                [e["recall_at_5"] for e in evaluations],
                cls_recall=cls_recall,
                budget_steps=snapshot.steps[-1]["step"],  # the axis grows with training, not only at evaluations
                names=(t("sentence_vectors.recall_1"), t("sentence_vectors.recall_5")),
                cls_label=t("sentence_vectors.cls_line"),
                step_title=t("sentence_vectors.step"),
                title=t("sentence_vectors.curve_title"),
            ),
            key="sentence_vectors_curve",
            summary=charts.recall_summary(recall_1, steps, t("sentence_vectors.summary_curve")),
        )

    job_view.live(JOB, active, live_view, t("sentence_vectors.no_job"))
    job = job_view.current(JOB)
    if job is None or logic.TRAINED not in vectors or not text:
        return
    st.subheader(t("sentence_vectors.trained_header"))
    trained = {"mean": vectors["mean"], logic.TRAINED: vectors[logic.TRAINED]}
    bundle = context.bundle
    raw = logic.search(
        f"raw:{context.spec}", bundle, bundle.tokenizer, text, {"mean": trained["mean"]}, side, job.stride
    )
    tuned = logic.search(
        f"trained:{job.id}",
        job.trained_model(),
        job.tokenizer,
        text,
        {"mean": trained[logic.TRAINED]},
        side,
        job.stride,
    )
    left, right = st.columns(2)
    _hits(left, "mean", raw["mean"], side)
    _hits(right, logic.TRAINED, tuned["mean"], side)


def _running(snapshot: jobs.ContrastiveSnapshot) -> None:
    last = snapshot.steps[-1] if snapshot.steps else None
    if last is None or last.get("loss") is None:
        st.info(t("sentence_vectors.starting"), icon="📦")
        return
    text = t(
        "sentence_vectors.running",
        step=last["step"],
        seconds=last["seconds"],
        budget=snapshot.budget,
        loss=f"{last['loss']:.3f}",
    )
    st.info(text, icon="🏋️")


def _done(snapshot: jobs.ContrastiveSnapshot, evaluations: list[dict]) -> str:
    first, last = evaluations[0], evaluations[-1]
    return t(
        "sentence_vectors.done",
        start=first["recall_at_1"],
        end=last["recall_at_1"],
        steps=last["step"],
        seconds=last["seconds"],
    )
