"""Charts of the live pre-training page: records in (one per evaluation, per run), plotly figures out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .base import (
    SUMMARY_JOIN,
    base_layout,
    bottom_margin,
    figure,
    horizontal_line,
    left_margin,
    right_legend_margin,
    two_panels,
)
from .palette import BLUE, VERMILLION

RUN_COLOURS = (BLUE, VERMILLION)


def _right_margin(legend: bool, run_names: Mapping[str, str]) -> int:
    """Room for the legend of the runs, or without one for what ends past the plot's right edge: the last step's
    number, the baseline's label (measured 17 px)."""
    return right_legend_margin(run_names.values()) if legend else 25


def loss_curves(
    records: Mapping[str, Sequence[Mapping]],
    *,
    run_names: Mapping[str, str],
    mlm_title: str,
    nsp_title: str,
    step_title: str,
    title: str | None = None,
) -> go.Figure:
    """Held-out MLM loss (left) and NSP loss (right) against the step, one colour per run. Built in one go: it is
    redrawn at every evaluation of a live run."""
    data = []
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        x = [r["steps"] for r in rows]
        for panel, metric in (("", "mlm_loss"), ("2", "nsp_loss")):
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": [r[metric] for r in rows],
                    "mode": "lines",
                    "name": name,
                    "legendgroup": run,
                    "showlegend": panel == "",
                    "line": {"color": RUN_COLOURS[i % len(RUN_COLOURS)]},
                    "xaxis": f"x{panel}",
                    "yaxis": f"y{panel}",
                }
            )
    # A legend only to tell runs apart: with one run it took a sixth of an 800 px page from the two panels.
    several = sum(bool(records.get(run)) for run in run_names) > 1
    margin = {"l": left_margin(["10.0"]), "r": _right_margin(several, run_names), "b": bottom_margin(title=True)}
    if not title:  # room for the two panel titles, which the 10 px default would clip
        margin["t"] = 40
    layout = base_layout(title, 340, margin) | two_panels((mlm_title, nsp_title)) | {"showlegend": several}
    for axis in ("xaxis", "xaxis2"):
        layout[axis]["title"] = {"text": step_title}
    return figure({"data": data, "layout": layout})


def accuracy_curves(
    records: Mapping[str, Sequence[Mapping]],
    *,
    run_names: Mapping[str, str],
    baseline_name: str,
    accuracy_title: str,
    step_title: str,
    title: str | None = None,
) -> go.Figure:
    """Held-out [MASK] top-1 per run against the step, with the word-frequency baseline (on the same targets)
    as a dashed line: the plateau a model sits on until it starts to read the context."""
    data, baseline = [], None
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        if not rows:
            continue
        baseline = rows[-1]["frequency_baseline_top1"]
        data.append(
            {
                "type": "scatter",
                "x": [r["steps"] for r in rows],
                "y": [r["heldout_top1"] for r in rows],
                "mode": "lines+markers",
                "name": name,
                "line": {"color": RUN_COLOURS[i % len(RUN_COLOURS)]},
                "hovertemplate": "%{x}: %{y:.1%}<extra></extra>",
            }
        )
    # Plotly shows a legend from two traces on.
    margin = {
        "l": left_margin(["100%"], title=True),
        "r": _right_margin(len(data) > 1, run_names),
        "b": bottom_margin(title=True),
    }
    layout = base_layout(title, 340, margin) | {
        "yaxis": {"title": {"text": accuracy_title}, "tickformat": ".0%", "rangemode": "tozero"},
        "xaxis": {"title": {"text": step_title}},
    }
    if baseline is not None:
        shape, label = horizontal_line(
            baseline, {"dash": "dash", "color": "#888888"}, {"text": f"{baseline_name}: {baseline:.1%}"}, above=False
        )
        layout |= {"shapes": [shape], "annotations": [label]}
    return figure({"data": data, "layout": layout})


def target_kind_bars(
    last: Mapping[str, Mapping],
    *,
    run_names: Mapping[str, str],
    kind_names: Mapping[str, str],
    accuracy_title: str,
    title: str | None = None,
) -> go.Figure:
    """Top-1 per kind of held-out target ([MASK], kept unchanged, replaced at random), one bar group per run."""
    keys = {"masked": "heldout_top1", "kept": "kept_top1", "random": "random_top1"}
    data = []
    for i, (run, name) in enumerate(run_names.items()):
        record = last.get(run)
        if record is None:
            continue
        values = [record[keys[kind]] for kind in kind_names]
        data.append(
            {
                "type": "bar",
                "x": list(kind_names.values()),
                "y": values,
                "name": name,
                "marker": {"color": RUN_COLOURS[i % len(RUN_COLOURS)]},
                "text": [f"{v:.1%}" for v in values],
                "textposition": "auto",
            }
        )
    layout = base_layout(title, 340) | {
        "barmode": "group",
        "yaxis": {"title": {"text": accuracy_title}, "tickformat": ".0%", "range": [0, 1]},
    }
    return figure({"data": data, "layout": layout})


def loss_summary(records: Mapping[str, Sequence[Mapping]], run_names: Mapping[str, str], template: str) -> str:
    """How far each run's held-out MLM loss of ``loss_curves`` fell: {run}, {first}, {last}, {steps} of
    ``template``, one clause per run that has records."""
    parts = [
        template.format(run=name, first=rows[0]["mlm_loss"], last=rows[-1]["mlm_loss"], steps=rows[-1]["steps"])
        for run, name in run_names.items()
        if (rows := records.get(run))
    ]
    return SUMMARY_JOIN.join(parts)


def accuracy_summary(
    records: Mapping[str, Sequence[Mapping]], run_names: Mapping[str, str], template: str, baseline: str
) -> str:
    """Where each run's held-out top-1 of ``accuracy_curves`` went: {run}, {first}, {last}, {steps} of
    ``template`` per run that has records, then the word-frequency line: {value} of ``baseline``."""
    parts = [
        template.format(run=name, first=rows[0]["heldout_top1"], last=rows[-1]["heldout_top1"], steps=rows[-1]["steps"])
        for run, name in run_names.items()
        if (rows := records.get(run))
    ]
    last = [rows[-1] for rows in records.values() if rows]
    if last:  # the same line the chart draws: the last record's baseline
        parts.append(baseline.format(value=last[-1]["frequency_baseline_top1"]))
    return SUMMARY_JOIN.join(parts)


def kinds_summary(
    last: Mapping[str, Mapping | None], run_names: Mapping[str, str], kind_names: Mapping[str, str], template: str
) -> str:
    """For each run of ``target_kind_bars``, the kind of target it gets right most and least often: {run},
    {best}, {best_value}, {worst}, {worst_value} of ``template``."""
    keys = {"masked": "heldout_top1", "kept": "kept_top1", "random": "random_top1"}
    parts = []
    for run, name in run_names.items():
        record = last.get(run)
        if record is None:
            continue
        values = {kind: record[keys[kind]] for kind in kind_names}
        best, worst = max(values, key=values.get), min(values, key=values.get)
        parts.append(
            template.format(
                run=name,
                best=kind_names[best],
                best_value=values[best],
                worst=kind_names[worst],
                worst_value=values[worst],
            )
        )
    return SUMMARY_JOIN.join(parts)
