"""Figures drawn in HTML and CSS (``st.html``), not as charts: the overview's diagram and bars, and every strip of
token boxes (the masking lab's draw, the NSP lab's segments, the fine-tuning lab's tags).

A figure of text is best as text: it wraps to the screen's width (a box per token, as many a line as fit, at 800 px
as on a projector), scales with presenter mode (rem units), is read by screen readers, and costs a new browser no
chart library. Everything a reader typed is escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from app.core.palette import LIGHT, ORANGE, PALE, YELLOW, is_grey

# Part of the app's style sheet (``app.core.ui.style_sheet``), sent once a run, not with each figure. Rem units, so
# that presenter mode's larger root size enlarges the figures with the text around them. Below 480 px of page (a
# phone) a stage's steps stand in a column instead of a row.
FIGURE_CLASS = "bert-lab-figure"
# A chart's title (``chart_title``) looks like a figure's caption. It sits on its chart: its element takes back
# most of the gap Streamlit leaves between elements (a container around the two would do it too, but costs the
# server a block more per chart and run).
CHART_TITLE_CLASS = "bert-lab-chart-title"
FIGURE_CSS = f""".{FIGURE_CLASS} {{ margin: 0 0 0.5rem 0; font-size: 0.875rem; line-height: 1.35; }}
.{FIGURE_CLASS} figcaption, .{CHART_TITLE_CLASS} {{ font-weight: 600; font-size: 1rem; }}
.{FIGURE_CLASS} figcaption {{ margin-bottom: 0.5rem; }}
.{CHART_TITLE_CLASS} {{ margin: 0; line-height: 1.3; overflow-wrap: anywhere; }}
[data-testid="stElementContainer"]:has(.{CHART_TITLE_CLASS}) {{ margin-bottom: -0.75rem; }}
/* Streamlit sets lists in 1rem: the figure's lists are its text. */
.{FIGURE_CLASS} ol, .{FIGURE_CLASS} ul, .{FIGURE_CLASS} li {{ list-style: none; margin: 0; padding: 0;
  font-size: 0.875rem; }}
/* The stage's colour marks its title, which is in the text's own colour: orange text on white is hard to read
   (2:1 contrast), on a projector more so. */
.{FIGURE_CLASS} .stage-head {{ display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 1rem; }}
.{FIGURE_CLASS} .stage-head strong::before {{ content: ""; display: inline-block; width: 0.8rem; height: 0.8rem;
  margin-right: 0.4rem; vertical-align: -0.05rem; background: var(--line); }}
.{FIGURE_CLASS} .steps {{ display: flex; gap: 0.25rem; margin: 0.4rem 0; }}
.{FIGURE_CLASS} .steps li {{ flex: 1 1 0; display: flex; align-items: center; gap: 0.25rem; }}
.{FIGURE_CLASS} .steps li + li::before {{ content: "→" / ""; color: var(--line); font-size: 1.5rem;
  line-height: 1; }}
.{FIGURE_CLASS} .step {{ flex: 1 1 0; align-self: stretch; display: flex; align-items: center; justify-content: center;
  text-align: center; min-height: 3.5rem; padding: 0.4rem 0.6rem; background: var(--fill); color: #222222;
  border: 2px solid var(--line); overflow-wrap: anywhere; }}
.{FIGURE_CLASS} .carry {{ text-align: right; padding-right: 12%; color: #777777; font-size: 1.5rem;
  line-height: 1; }}
.{FIGURE_CLASS} .bars {{ display: grid; grid-template-columns: fit-content(40%) 1fr; gap: 0.5rem 0.75rem;
  align-items: center; }}
.{FIGURE_CLASS} .name {{ text-align: right; overflow-wrap: anywhere; }}
.{FIGURE_CLASS} .track {{ display: flex; flex-direction: column; gap: 2px; }}
.{FIGURE_CLASS} .bar {{ display: flex; align-items: center; gap: 0.4rem; white-space: nowrap; }}
.{FIGURE_CLASS} .bar > span {{ display: flex; height: 1.6rem; }}
.{FIGURE_CLASS} .bar i {{ display: block; height: 100%; }}
.{FIGURE_CLASS} .legend {{ display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; margin-top: 0.6rem; }}
.{FIGURE_CLASS} .legend i {{ display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.4rem;
  vertical-align: -0.05rem; }}
@container (max-width: 480px) {{
  .{FIGURE_CLASS} .steps {{ flex-direction: column; align-items: stretch; }}
  .{FIGURE_CLASS} .steps li {{ flex-direction: column; }}
  .{FIGURE_CLASS} .steps li + li::before {{ content: "↓" / ""; }}
  .{FIGURE_CLASS} .step {{ width: 100%; }}
}}
.{FIGURE_CLASS} .boxes {{ display: flex; flex-wrap: wrap; gap: 4px; align-items: stretch; }}
.{FIGURE_CLASS} .box {{ display: flex; flex-direction: column; align-items: center; justify-content: center;
  min-width: 2.4rem; padding: 0.2rem 0.45rem; background: var(--fill); color: #222222; font-size: 0.95rem;
  line-height: 1.3; overflow-wrap: anywhere; }}
/* #333 stays readable (4.5:1 and more) on the strips' strongest fills as on their palest. */
.{FIGURE_CLASS} .box small {{ color: #333333; font-size: 0.7rem; }}
.{FIGURE_CLASS} .box.key {{ background: none; align-items: flex-end; color: #555555; font-size: 0.75rem; }}
/* The names of the lines stand level with the lines they name. */
.{FIGURE_CLASS} .box.key > span {{ line-height: calc(0.95rem * 1.3); }}
.{FIGURE_CLASS} .legend i.edge {{ outline: 1px solid #999999; outline-offset: -1px; }}
/* A passage with its answer marked (the fine-tuning lab's question answering): dark text on a light fill. */
.{FIGURE_CLASS} .passage {{ font-size: 1rem; line-height: 1.7; margin: 0; overflow-wrap: anywhere; }}
.{FIGURE_CLASS} .passage mark {{ background: {LIGHT[YELLOW]}; color: #222222; padding: 0.1rem 0.2rem;
  border-bottom: 2px solid {ORANGE}; }}
"""


def text(value: object) -> str:
    """Text for a figure's HTML: tokens and model names are what the reader typed."""
    return html.escape(str(value))


def figure(title: str | None, body: str) -> str:
    caption = f"<figcaption>{text(title)}</figcaption>" if title else ""
    return f'<figure class="{FIGURE_CLASS}">{caption}{body}</figure>'


def chart_title(title: str) -> str:
    """A chart's title as text above its figure, where it wraps in a narrow column; plotly would cut it."""
    return f'<p class="{CHART_TITLE_CLASS}">{text(title)}</p>'


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """A key of (name, colour) squares; a pale colour gets an edge, or it vanishes on white."""
    keys = "".join(
        f'<li><i{" class=edge" if is_pale(colour) else ""} style="background:{colour}"></i>{text(name)}</li>'
        for name, colour in entries
    )
    return f'<ul class="legend">{keys}</ul>'


def is_pale(colour: str) -> bool:
    """A colour close to white (each channel above 0xE0), or a light grey."""
    digits = colour.lstrip("#")
    channels = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    return min(channels) > 0xE0 or (is_grey(colour) and channels[0] > 0xD0)


def token_boxes(
    lines: Sequence[Sequence[str]],
    colours: Sequence[str],
    *,
    hovers: Sequence[str] | None = None,
    legend_entries: Sequence[tuple[str, str]] = (),
    row_names: Sequence[str] | None = None,
    small_from: int = 1,
    title: str | None = None,
) -> str:
    """A sentence as a row of boxes, one per token, wrapping like text: box ``i`` shows ``lines[i]`` one above the
    other (from line ``small_from`` on in small grey type), has the background ``colours[i]`` and the tooltip
    ``hovers[i]``. ``row_names`` name the lines in a first, uncoloured box; ``legend_entries`` (name, colour)
    come below."""
    if len(colours) != len(lines) or (hovers is not None and len(hovers) != len(lines)):
        raise ValueError(f"{len(lines)} tokens, {len(colours)} colours, {len(hovers or lines)} hovers")

    def box(cells: Sequence[str], style: str, tip: str | None, kind: str = "box") -> str:
        shown = "".join(
            f"<small>{text(cell) or '&nbsp;'}</small>" if i >= small_from else f"<span>{text(cell) or '&nbsp;'}</span>"
            for i, cell in enumerate(cells)
        )
        title_attribute = f' title="{text(tip)}"' if tip else ""
        return f'<li class="{kind}" style="{style}"{title_attribute}>{shown}</li>'

    boxes = [box(row_names, "", None, "box key")] if row_names else []
    boxes += [
        box(cells, f"--fill:{colour}", hovers[i] if hovers is not None else None)
        for i, (cells, colour) in enumerate(zip(lines, colours))
    ]
    key = legend(legend_entries) if legend_entries else ""
    return figure(title, f'<ul class="boxes">{"".join(boxes)}</ul>{key}')


def stages(rows: Sequence[tuple[str, Sequence[str], str, str]], *, carry: bool = False) -> str:
    """Rows of boxes joined by arrows, each (title, steps, note, colour): a pipeline drawn in HTML, which wraps to a
    phone's width where a diagram drawn with spaces would fall apart. ``carry`` puts an arrow between the rows (what
    one row makes, the next takes)."""
    drawn = []
    for title, steps, note, colour in rows:
        boxes = "".join(f'<li><div class="step">{text(step)}</div></li>' for step in steps)
        drawn.append(
            f'<div style="--line:{colour};--fill:{PALE[colour]}">'
            f'<div class="stage-head"><strong>{text(title)}</strong><span>{text(note)}</span></div>'
            f'<ol class="steps">{boxes}</ol></div>'
        )
    return figure(None, ('<div class="carry" aria-hidden="true">↓</div>' if carry else "").join(drawn))


def stages_from_text(written: str) -> list[tuple[str, list[str], str]]:
    """Stages as their strings write them, three lines each: the title, the steps joined by " → ", and the note."""
    lines = written.split("\n")
    if len(lines) % 3:
        raise ValueError(f"a stage is three lines (title, steps, note): {written!r}")
    return [
        (title, [step.strip() for step in steps.split("→")], note)
        for title, steps, note in zip(lines[::3], lines[1::3], lines[2::3])
    ]


def stages_summary(rows: Sequence[tuple[str, Sequence[str], str]], template: str, join: str) -> str:
    """``stages`` read aloud, one row after the other: {stage}, {steps} (joined by arrows) and {note} of
    ``template`` per (title, steps, note) row, the rows joined by ``join``."""
    return join.join(template.format(stage=title, steps=" → ".join(steps), note=note) for title, steps, note in rows)
