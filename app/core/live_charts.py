"""Charts of the live pre-training page: records in (one per evaluation, per run), a ``Chart`` (a plotly figure)
out.

The page redraws them at every evaluation of a live run (every few seconds), from a few dozen records a run:
plain lists, built in one go."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    horizontal_line,
    left_margin,
    legend_below,
    plotly_text,
    side_by_side,
    value_axis,
)
from app.core.numbers import percent
from app.core.palette import BASELINE, BLUE, GREEN, VERMILLION

RUN_COLOURS = (BLUE, VERMILLION, GREEN)  # an experiment's runs: up to three (the variants')


def run_colour(index: int) -> str:
    return RUN_COLOURS[index % len(RUN_COLOURS)]


def curve(name: str, x: Sequence, y: Sequence, colour: str, hover: str, **where) -> dict:
    """One run's line, a small marker at each evaluation (what its hover reads)."""
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": plotly_text(name),
        "x": list(x),
        "y": list(y),
        "line": {"color": colour, "width": 2},
        "marker": {"size": 5, "color": colour},
        "hovertemplate": hover,
    } | where


def loss_curves(
    records: Mapping[str, Sequence[Mapping]],
    *,
    run_names: Mapping[str, str],
    mlm_title: str,
    nsp_title: str,
    step_title: str,
    title: str | None = None,
) -> Chart:
    """Held-out MLM loss (left) and NSP loss (right) against the step, one colour per run; a legend only to tell
    several runs apart (with one, it took the panels' room for nothing)."""
    data = []
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        x = [r["steps"] for r in rows]
        for panel, metric in (("", "mlm_loss"), ("2", "nsp_loss")):
            hover = f"{plotly_text(name)} · {plotly_text(step_title)} %{{x}}: %{{y:.4f}}<extra></extra>"
            y = [round(float(r[metric]), 4) for r in rows]
            where = {"xaxis": f"x{panel}", "yaxis": f"y{panel}", "legendgroup": run, "showlegend": not panel}
            data.append(curve(name, x, y, run_colour(i), hover, **where))
    several = sum(bool(records.get(run)) for run in run_names) > 1
    panels = side_by_side((mlm_title, nsp_title))
    margin = {
        "t": 30,
        "l": left_margin(["0.000"]),
        "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + (LEGEND_ROOM if several else 0),
    }
    layout = base_layout(310 + (LEGEND_ROOM if several else 0), margin, showlegend=several)
    layout |= {
        "xaxis": panels["xaxis"] | value_axis(title=step_title, rangemode="tozero"),
        "xaxis2": panels["xaxis2"] | value_axis(title=step_title, rangemode="tozero"),
        # Losses over their own range: an NSP loss that falls from 0.69 to 0.6 would be flat on an axis from 0.
        "yaxis": panels["yaxis"] | value_axis(),
        "yaxis2": panels["yaxis2"] | value_axis(),
        "annotations": panels["annotations"],
    }
    if several:
        layout["legend"] = legend_below()
    # Runs without records keep no trace: a legend entry for them would name nothing drawn.
    return chart([trace for trace in data if len(trace["x"])], layout, title)


def accuracy_curves(
    records: Mapping[str, Sequence[Mapping]],
    *,
    run_names: Mapping[str, str],
    baseline_name: str,
    accuracy_title: str,
    step_title: str,
    title: str | None = None,
) -> Chart:
    """Held-out [MASK] top-1 per run (in percent) against the step, with the word-frequency baseline (on the same
    targets) as a dashed line: the plateau a model sits on until it starts to read the context."""
    data, baseline = [], None
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        if not rows:
            continue
        baseline = rows[-1]["frequency_baseline_top1"]
        x = [r["steps"] for r in rows]
        y = [round(100 * r["heldout_top1"], 2) for r in rows]
        data.append(curve(name, x, y, run_colour(i), f"{plotly_text(name)} · %{{x}}: %{{y}}%<extra></extra>"))
    several = len(data) > 1
    layout = base_layout(
        324 + (LEGEND_ROOM if several else 0),
        {
            "t": 24,
            "r": 24,
            "l": left_margin(["100%"], title=True),
            "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + (LEGEND_ROOM if several else 0),
        },
        showlegend=several,
        xaxis=value_axis(title=step_title, rangemode="tozero"),
        yaxis=value_axis(title=accuracy_title, percent=True, rangemode="tozero"),
    )
    if several:
        layout["legend"] = legend_below()
    if baseline is not None:
        value = round(100 * baseline, 2)
        shape, label = horizontal_line(value, f"{baseline_name}: {percent(baseline, 1)}", colour=BASELINE)
        layout |= {"shapes": [shape], "annotations": [label]}
        # An invisible point on the line: a shape does not count in the axis's range, and a baseline above
        # every run would fall off the chart.
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [data[0]["x"][-1]],
                "y": [value],
                "marker": {"opacity": 0},
                "hoverinfo": "skip",
                "showlegend": False,
            }
        )
    return chart(data, layout, title)


def target_kind_bars(
    last: Mapping[str, Mapping],
    *,
    run_names: Mapping[str, str],
    kind_names: Mapping[str, str],
    accuracy_title: str,
    title: str | None = None,
) -> Chart:
    """Top-1 per kind of held-out target ([MASK], kept unchanged, replaced at random), in percent, one bar group
    per run, each bar labelled with its value."""
    keys = {"masked": "heldout_top1", "kept": "kept_top1", "random": "random_top1"}
    kinds = [plotly_text(name) for name in kind_names.values()]
    data = []
    for i, (run, name) in enumerate(run_names.items()):
        record = last.get(run)
        if record is None:
            continue
        values = [round(100 * record[keys[kind]], 1) for kind in kind_names]
        data.append(
            {
                "type": "bar",
                "name": plotly_text(name),
                "x": kinds,
                "y": values,
                "marker": {"color": run_colour(i)},
                "text": [percent(v / 100, 1) for v in values],  # values in percent
                "textposition": "outside",
                "cliponaxis": False,
                "hovertemplate": f"{plotly_text(name)} · %{{x}}: %{{y}}%<extra></extra>",
            }
        )
    several = len(data) > 1
    top = 24 + (LEGEND_ROOM if several else 0)
    layout = base_layout(
        324 + (LEGEND_ROOM if several else 0),
        {"t": top, "r": 8, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM},
        barmode="group",
        showlegend=several,
        xaxis=category_axis(kinds),
        yaxis=value_axis(title=accuracy_title, percent=True, range=[0, 100]),
    )
    if several:
        layout["legend"] = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yref": "container"}
        layout["legend"]["yanchor"] = "top"
    return chart(data, layout, title)


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
