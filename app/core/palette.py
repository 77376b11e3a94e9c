"""The colours every chart draws with, chosen so that readers with a colour-vision deficiency see the same
distinctions as everyone else.

Categories use Okabe & Ito's eight colours ("Color Universal Design", 2008), distinguishable under the common
forms of colour blindness and in greyscale by lightness; boxes that carry black text use their tints. Heatmaps
of one-signed values use viridis or cividis (perceptually uniform, readable by deuteranopes and protanopes);
signed values use ColorBrewer's red-blue, which avoids the red-green axis. Neutral greys carry no hue and may
be used anywhere. No chart tells two meanings apart by red against green: where two outcomes matter (kept or
changed, next sentence or not), a label or a marker says it too.
"""

from __future__ import annotations

import re

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"  # bluish green: stays apart from orange and vermillion for deuteranopes
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"  # reddish purple
SKY = "#56B4E9"
YELLOW = "#F0E442"
BLACK = "#000000"
BASELINE = "#777777"  # a baseline's dashed line (a neutral grey: no category's colour)
CATEGORICAL = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK)

SEQUENTIAL = "Viridis"  # attention weights, shares, entropy
SEQUENTIAL_SECOND = "Cividis"  # a second quantity on the same page (change, importance), told apart from the first
DIVERGING = "RdBu_r"  # signed values: negative blue, zero white, positive red
COLOUR_SCALES = (SEQUENTIAL, SEQUENTIAL_SECOND, DIVERGING)
# Each scale as evenly spaced stops, low to high: matplotlib's viridis and cividis, ColorBrewer's RdBu reversed.
SCALE_STOPS = {
    "Viridis": ("#440154", "#482878", "#3E4989", "#31688E", "#26828E", "#1F9E89", "#35B779", "#6ECE58", "#B5DE2B")
    + ("#FDE725",),
    "Cividis": ("#00224E", "#123570", "#3B496C", "#575D6D", "#707173", "#8A8678", "#A59C74", "#C3B369", "#E1CC55")
    + ("#FEE838",),
    "RdBu_r": ("#053061", "#2166AC", "#4393C3", "#92C5DE", "#D1E5F0", "#F7F7F7", "#FDDBC7", "#F4A582", "#D6604D")
    + ("#B2182B", "#67001F"),
}


def tint(colour: str, strength: float) -> str:
    """``colour`` mixed with white: ``strength`` 1 is the colour itself, 0 is white."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * strength):02X}" for c in rgb)


PALE = {colour: tint(colour, 0.2) for colour in CATEGORICAL}  # backgrounds, bands
LIGHT = {colour: tint(colour, 0.5) for colour in CATEGORICAL}  # boxes with black text, faint raw curves


def is_grey(colour: str) -> bool:
    """A neutral grey ``#RRGGBB`` (or ``#RGB``) with equal channels, white and black included."""
    digits = colour.lstrip("#").upper()
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return bool(re.fullmatch(r"[0-9A-F]{6}", digits)) and digits[0:2] == digits[2:4] == digits[4:6]


def allowed(colour: str) -> bool:
    """True for a colour of this palette: a category colour, one of its tints, or a neutral grey."""
    upper = colour.upper()
    return upper in CATEGORICAL or upper in PALE.values() or upper in LIGHT.values() or is_grey(upper)
