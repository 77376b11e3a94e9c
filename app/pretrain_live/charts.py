"""Charts of the live pre-training page: records in (one per evaluation, per run), a ``Chart`` out.

The page redraws them at every evaluation of a live run (every few seconds), from a few dozen records a run:
plain lists, built in one go."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.charts import (
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_option,
    category_axis,
    grid,
    rounded,
    side_by_side,
    value_axis,
)
from app.core.palette import BLUE, VERMILLION
from app.finetune.charts import BASELINE_STYLE

RUN_COLOURS = (BLUE, VERMILLION)


def run_colour(index: int) -> str:
    return RUN_COLOURS[index % len(RUN_COLOURS)]


def curve(name: str, points: Sequence[tuple], colour: str, tooltip: str, **where) -> dict:
    """One run's line, a small marker at each evaluation (what its tooltip reads)."""
    return {
        "type": "line",
        "name": name,
        "data": [list(point) for point in points],
        "symbol": "circle",
        "symbolSize": 5,
        "lineStyle": {"color": colour, "width": 2},
        "itemStyle": {"color": colour},
        "tooltip": {"formatter": tooltip},
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
    series = []
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        x = [r["steps"] for r in rows]
        for index, metric in ((0, "mlm_loss"), (1, "nsp_loss")):
            points = zip(x, rounded([r[metric] for r in rows]), strict=True)
            tooltip = f"{{a}} · {step_title} {{@[0]}}: {{@[1]}}"
            series.append(curve(name, points, run_colour(i), tooltip, xAxisIndex=index, yAxisIndex=index))
    several = sum(bool(records.get(run)) for run in run_names) > 1
    panels = side_by_side((mlm_title, nsp_title), legend_below=several)
    option = base_option() | {
        "title": panels["title"],
        "grid": panels["grid"],
        "xAxis": [value_axis(name=step_title, gridIndex=index, nameGap=25) for index in (0, 1)],
        # Losses over their own range: an NSP loss that falls from 0.69 to 0.6 would be flat on an axis from 0.
        "yAxis": [value_axis(gridIndex=index, scale=True) for index in (0, 1)],
        "series": series,
    }
    if several:
        option["legend"] = {"bottom": 0, "left": 0, "data": [run_names[run] for run in run_names if records.get(run)]}
    return Chart(option, 310 + (LEGEND_ROOM if several else 0), title)


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
    series, baseline, last_step = [], None, 0
    for i, (run, name) in enumerate(run_names.items()):
        rows = records.get(run, ())
        if not rows:
            continue
        baseline = rows[-1]["frequency_baseline_top1"]
        last_step = max(last_step, rows[-1]["steps"])
        points = zip([r["steps"] for r in rows], rounded([100 * r["heldout_top1"] for r in rows], 2), strict=True)
        series.append(curve(name, points, run_colour(i), "{a} · {@[0]}: {@[1]}%"))
    names = [s["name"] for s in series]
    if baseline is not None:
        value = round(100 * baseline, 2)
        # A line across the plot, and under it one point at the last step: a mark line alone would not count
        # in the axis's range, and a baseline above every run would fall off the chart.
        series.append(
            {
                "type": "line",
                "name": baseline_name,
                "data": [[last_step, value]],
                "symbol": "none",
                "silent": True,
                "tooltip": {"show": False},
                "markLine": {
                    "symbol": "none",
                    "silent": True,
                    "lineStyle": BASELINE_STYLE,
                    "label": {"position": "insideEndBottom", "formatter": "{b}", "color": "#555555"},
                    "data": [{"yAxis": value, "name": f"{baseline_name}: {baseline:.1%}"}],
                },
            }
        )
    several = len(names) > 1
    option = base_option() | {
        "grid": grid(top=24, bottom=8 + (LEGEND_ROOM if several else 0), left=8, right=24),
        "xAxis": value_axis(name=step_title, nameGap=25),
        "yAxis": value_axis(name=accuracy_title, percent=True, min=0, nameGap=12),
        "series": series,
    }
    if several:
        option["legend"] = {"bottom": 0, "left": 0, "data": names}
    return Chart(option, 324 + (LEGEND_ROOM if several else 0), title)


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
    series = []
    for i, (run, name) in enumerate(run_names.items()):
        record = last.get(run)
        if record is None:
            continue
        series.append(
            {
                "type": "bar",
                "name": name,
                "data": rounded([100 * record[keys[kind]] for kind in kind_names], 1),
                "itemStyle": {"color": run_colour(i)},
                "label": {"show": True, "position": "top", "formatter": "{c}%"},
            }
        )
    several = len(series) > 1
    top = 24 + (28 if several else 0)
    option = base_option() | {
        "grid": grid(top=top, bottom=8, left=8, right=8),
        "xAxis": category_axis(list(kind_names.values())),
        "yAxis": value_axis(name=accuracy_title, percent=True, min=0, max=100, nameGap=12),
        "tooltip": {"confine": True, "trigger": "item", "formatter": "{a} · {b}: {c}%"},
        "series": series,
    }
    if several:
        option["legend"] = {"top": top - 30, "left": 0}
    return Chart(option, 324 + (28 if several else 0), title)


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
