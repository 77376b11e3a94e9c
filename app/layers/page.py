"""The layers lab: what each layer knows (linear probes, control task, expected layer) and how its vectors are
shaped (anisotropy, self-similarity, a word's vectors in 2-D), on the loaded model and its random twin; and which
held-out tokens lie nearest to a token of the shared sentence (corpus search, ``search_section``)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app.core.i18n import t
from app.core.state import SETTINGS, PageContext, keep, start_in_language
from app.core.ui import download_buttons, for_engineers, page_title, plot
from app.layers import charts, search_section
from app.layers import logic as lab
from model.analysis import data
from model.data.fetch import FetchError

INITS = ("pretrained", "random")  # the loaded model and its random twin


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    start_in_language(
        "layers",
        {"layers_task": lab.DEFAULT_TASK[context.reads], "layers_word": lab.DEFAULT_WORD[context.reads]},
    )
    page_title(t("layers.title"), t("layers.intro"))
    task, train, test = probing(context.bundle, context.spec)
    word, n_contexts = geometry(context.bundle, context.spec)
    search_section.render(context)
    st.caption(t("layers.share_hint"))
    # Show, then tell: the experiments above, how the probes work and what research found below, folded.
    with st.expander(t("layers.probe_how_heading")):
        st.markdown(t("layers.probe_intro"))
    with st.expander(t("layers.reference_heading")):
        st.markdown(t("layers.reference"))
    for_engineers(
        context.spec,
        ["probe", "--task", task, "--control", "--train-sentences", str(train), "--test-sentences", str(test)],
        ["geometry", "--word", word, "--contexts", str(n_contexts)],
    )


def _ran(key: str) -> None:
    st.session_state[key] = True


@dataclass(frozen=True)
class ProbeChoice:
    task: str
    task_name: str
    train: int
    test: int
    show_random: bool
    show_control: bool


def probing(bundle, spec: str) -> tuple[str, int, int]:
    """Part 1: a linear probe per layer (and the control task), on the loaded model and its random twin; returns
    the task and the sizes, for the command line."""
    st.subheader(t("layers.probe_header"))
    choice = _probe_controls()
    if not st.session_state["layers_probe_ran"]:
        st.info(t("layers.probe_waiting"))
    else:
        inits = INITS if choice.show_random else INITS[:1]
        reports = _probe_reports(spec, choice, inits)
        if reports:
            _probe_results(bundle, choice, reports, inits)
    return choice.task, choice.train, choice.test


def _probe_controls() -> ProbeChoice:
    task_names = {task: t(f"layers.task_{task}") for task in data.PROBE_TASKS}
    st.radio(
        t("layers.task"),
        data.PROBE_TASKS,
        format_func=task_names.get,
        horizontal=True,
        **keep("layers_task"),
    )
    task = st.session_state["layers_task"]
    st.caption(t(f"layers.task_note_{task}"))
    size_columns = st.columns(4, vertical_alignment="bottom")
    with size_columns[0]:
        st.slider(
            t("layers.train_sentences"),
            SETTINGS["layers_train"].low,
            SETTINGS["layers_train"].high,
            step=20,
            help=t("layers.sizes_help"),
            **keep("layers_train"),
        )
    with size_columns[1]:
        st.slider(
            t("layers.test_sentences"),
            SETTINGS["layers_test"].low,
            SETTINGS["layers_test"].high,
            step=20,
            **keep("layers_test"),
        )
    with size_columns[2]:
        show_random = st.toggle(t("layers.show_random"), value=True, key="layers_show_random")
        show_control = st.toggle(t("layers.show_control"), value=True, key="layers_show_control")
    with size_columns[3]:
        st.button(
            t("layers.run_probe"), type="primary", on_click=_ran, args=("layers_probe_ran",), key="layers_run_probe"
        )
    train, test = st.session_state["layers_train"], st.session_state["layers_test"]
    return ProbeChoice(task, task_names[task], train, test, show_random, show_control)


def _probe_reports(spec: str, choice: ProbeChoice, inits: tuple[str, ...]) -> dict[str, dict]:
    """Each model's probe report: measured before on these weights, or its vectors computed now (with a bar)."""
    task, train, test = choice.task, choice.train, choice.test
    reports: dict[str, dict] = {}
    try:
        bar = st.progress(0.0, text=t("layers.loading_corpus"))
        for init in inits:
            if lab.probe_report_stored(spec, task, init, train, test, choice.show_control and init == "pretrained"):
                continue  # measured before on these weights: no vectors needed
            model_name = t(f"layers.model_{init}")

            def on_progress(done: int, total: int, model_name=model_name) -> None:
                bar.progress(done / total, text=t("layers.computing", model=model_name, done=done, total=total))

            lab.probe_features(spec, task, init, train, test, on_progress=on_progress)
        bar.empty()
        with st.spinner(t("layers.training_probes")):
            for init in inits:
                reports[init] = lab.probe_report(
                    spec, task, init, train, test, choice.show_control and init == "pretrained"
                )
    except (FetchError, OSError, ValueError) as error:
        st.warning(t("layers.data_error", error=error))
    return reports


def _probe_results(bundle, choice: ProbeChoice, reports: dict[str, dict], inits: tuple[str, ...]) -> None:
    task, show_control = choice.task, choice.show_control
    pretrained = reports["pretrained"]
    names = {key: t(f"layers.line_{key}") for key in ("pretrained", "random", "control", "selectivity")}
    lines = {init: reports[init]["layers"] for init in inits}
    if show_control:
        lines["control"] = pretrained["control"]
    expected = pretrained["expected_layer"]
    chart = charts.accuracy_by_layer(
        lines,
        names,
        selectivity=pretrained.get("selectivity"),
        expected_layer=expected,
        expected_label=t("layers.expected_marker", value=expected) if expected is not None else "",
        majority=pretrained["majority_baseline"],
        majority_label=t("layers.majority_marker", value=pretrained["majority_baseline"]),
        layer_title=t("layers.axis_layer"),
        accuracy_title=t("layers.axis_accuracy"),
        title=t("layers.accuracy_title", task=choice.task_name),
    )
    plot(
        chart,
        key="layers_accuracy",
        summary=charts.best_layer_summary(lines, names, t("layers.summary_accuracy")),
    )
    accuracy = pretrained["layers"]
    best = max(range(len(accuracy)), key=accuracy.__getitem__)
    st.markdown(
        t(
            "layers.probe_summary",
            train=pretrained["train_words"],
            test=pretrained["test_words"],
            best=best,
            accuracy=accuracy[best],
            expected=f"{expected:.2f}" if expected is not None else t("layers.expected_none"),
        )
    )
    if show_control:
        sel = pretrained["selectivity"]
        top = max(range(len(sel)), key=sel.__getitem__)
        st.markdown(t("layers.selectivity_summary", layer=top, value=sel[top]))
    st.caption(t("layers.expected_help"))
    headers = {key: t(f"layers.col_{key}") for key in ("pretrained", "random", "control", "selectivity")}
    header, rows = lab.probe_rows(reports, headers, t("layers.col_layer"))
    st.dataframe([dict(zip(header, row)) for row in rows], hide_index=True)
    download_buttons(
        f"probe_{task}",
        lambda: (header, rows),
        data=lambda: {"model": bundle.name, "task": task, "runs": reports},
        key="layers_probe",
    )


def geometry(bundle, spec: str) -> tuple[str, int]:
    """Part 2: how the vectors are shaped, layer by layer (anisotropy, a word's self-similarity, its vectors in 2-D
    and 3-D); returns the word and the number of contexts, for the command line."""
    # a lesson step outlines this part (app.lessons)
    with st.container(key="layers_geometry_section"):
        st.subheader(t("layers.geometry_header"))
        st.markdown(t("layers.geometry_intro"))
        word_columns = st.columns([2, 2, 1], vertical_alignment="bottom")
    with word_columns[0]:
        st.text_input(
            t("layers.word"),
            max_chars=SETTINGS["layers_word"].high,
            help=t("layers.word_help"),
            **keep("layers_word"),
        )
    with word_columns[1]:
        st.slider(
            t("layers.contexts"),
            SETTINGS["layers_contexts"].low,
            SETTINGS["layers_contexts"].high,
            **keep("layers_contexts"),
        )
    with word_columns[2]:
        st.button(
            t("layers.run_geometry"),
            type="primary",
            on_click=_ran,
            args=("layers_geometry_ran",),
            key="layers_run_geometry",
        )
    word, n_contexts = st.session_state["layers_word"].strip(), st.session_state["layers_contexts"]
    if not st.session_state["layers_geometry_ran"]:
        st.info(t("layers.geometry_waiting"))
        return word, n_contexts
    measured = _measure_geometry(spec, word, n_contexts)
    if measured is not None:
        contexts, vectors, anisotropy = measured
        _geometry_results(bundle, word, contexts, vectors, anisotropy)
        _word_projection(spec, word, n_contexts, vectors)
    return word, n_contexts


def _measure_geometry(spec: str, word: str, n_contexts: int):
    """The word's contexts, each model's vectors of it and its anisotropy; None (with the reason shown) when the
    corpus cannot give them."""
    vectors, anisotropy = {}, {}
    try:
        contexts = lab.word_contexts(word, n_contexts)
        with st.spinner(t("layers.measuring")):
            for init in INITS:
                anisotropy[init] = lab.anisotropy(spec, init, contexts.language)
                vectors[init] = lab.word_vectors(spec, word, n_contexts, init)
    except data.ContextError as error:
        values = dict(error.values)
        if "language" in values:  # the corpus searched, by name
            values["corpus"] = t(f"layers.corpus_{values.pop('language')}")
        st.warning(t(f"layers.word_error_{error.code}", **values))
        return None
    except (FetchError, OSError, ValueError) as error:
        st.warning(t("layers.word_error", error=error))
        return None
    return contexts, vectors, anisotropy


def _geometry_results(bundle, word: str, contexts, vectors: dict, anisotropy: dict) -> None:
    kept = len(vectors["pretrained"].texts)
    corpus = t(f"layers.corpus_{contexts.language}")
    st.caption(t("layers.found_contexts", n=kept, word=word, corpus=corpus))
    self_similarity = {init: vectors[init].self_similarity for init in INITS}
    series = {f"anisotropy_{i}": anisotropy[i] for i in INITS}
    series |= {f"self_similarity_{i}": self_similarity[i] for i in INITS}
    chart = charts.geometry_by_layer(
        series,
        {key: t(f"layers.series_{key}") for key in series},
        layer_title=t("layers.axis_layer"),
        value_title=t("layers.axis_cosine"),
        title=t("layers.geometry_title", word=word),
    )
    plot(
        chart,
        key="layers_geometry",
        summary=charts.series_summary(
            series, {key: t(f"layers.series_{key}") for key in series}, t("layers.summary_geometry")
        ),
    )
    headers = {f"{m}_{i}": t(f"layers.col_{m}_{i}") for m in ("anisotropy", "self_similarity") for i in INITS}
    header, rows = lab.geometry_rows(anisotropy, self_similarity, headers, t("layers.col_layer"))
    st.dataframe([dict(zip(header, row)) for row in rows], hide_index=True)
    download_buttons(
        f"geometry_{word}",
        lambda: (header, rows),
        data=lambda: {
            "model": bundle.name,
            "word": word,
            "anisotropy": anisotropy,
            "self_similarity": self_similarity,
        },
        key="layers_geometry",
    )


def _word_projection(spec: str, word: str, n_contexts: int, vectors: dict) -> None:
    """The word's vectors in each context, projected to 2-D per layer and to 3-D at a chosen layer."""
    kept = len(vectors["pretrained"].texts)
    st.markdown(f"**{t('layers.projection_header', word=word, n=kept)}**")
    init_names = {init: t(f"layers.model_{init}") for init in INITS}
    shown = st.radio(
        t("layers.projection_init"),
        INITS,
        format_func=init_names.get,
        horizontal=True,
        key="layers_projection_init",
    )
    chosen = vectors[shown]
    panels = charts.pca_panels(
        chosen.coords,
        chosen.explained,
        chosen.labels,
        chosen.texts,
        panel_title=t("layers.panel_title"),
        other_label=t("layers.other_label"),
    )
    plot(
        panels,
        key="layers_projection",
        summary=charts.pca_summary(
            chosen.coords,
            chosen.explained,
            chosen.labels,
            t("layers.summary_projection"),
            t("layers.summary_projection_single"),
        ),
    )
    st.caption(t("layers.projection_note"))
    last = chosen.coords.shape[0] - 1
    layer = st.slider(t("layers.projection_3d_layer"), 0, last, last, key="layers_projection_3d_layer")
    coords, explained = lab.word_pca_3d(spec, word, n_contexts, shown, layer)
    plot(
        charts.pca_3d(
            coords,
            chosen.labels,
            chosen.texts,
            explained=explained,
            axis_title=t("layers.axis_pc"),
            other_label=t("layers.other_label"),
            title=t("layers.projection_3d_title", word=word, layer=layer),
        ),
        key="layers_projection_3d",
        summary=charts.pca_3d_summary(
            coords,
            explained,
            chosen.labels,
            layer,
            t("layers.summary_projection_3d"),
            t("layers.summary_projection_3d_single"),
        ),
    )
    header, rows = lab.projection_rows(chosen, t("layers.col_sentence"), t("layers.col_label"), t("layers.col_pc"))
    download_buttons(f"projection_{word}_{shown}", lambda: (header, rows), key="layers_projection")
