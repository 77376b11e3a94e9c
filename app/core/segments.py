"""A ``[CLS] A [SEP] B [SEP]`` input as token boxes coloured by segment (HTML, ``app.core.markup``): the NSP lab
draws its pair with it, and the fine-tuning lab the sentence pairs and endings it classifies."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.markup import token_boxes
from app.core.palette import BLUE, LIGHT, ORANGE, PALE

# Cell codes: 2 * segment + (1 if special): A word, A special, B word, B special.
CELL_COLOURS = (PALE[BLUE], LIGHT[BLUE], PALE[ORANGE], LIGHT[ORANGE])
LEGEND_COLOURS = (CELL_COLOURS[1], CELL_COLOURS[3])


def cell_codes(segment_ids: Sequence[int], special: Sequence[bool]) -> list[int]:
    """One colour code per token: its segment, darker where the tokenizer flags [CLS] and [SEP]."""
    if len(special) != len(segment_ids):
        raise ValueError(f"{len(special)} special flags but {len(segment_ids)} segment ids")
    return [2 * int(segment) + bool(flag) for segment, flag in zip(segment_ids, special)]


def segment_strip(
    tokens: Sequence[str],
    segment_ids: Sequence[int],
    special: Sequence[bool],
    *,
    segment_labels: Sequence[str],
    position_label: str,
    title: str | None = None,
) -> str:
    """The input as a row of token boxes in reading order, wrapping like text, coloured by segment (HTML)."""
    codes = cell_codes(segment_ids, special)
    # Token on top, its position below: the three numbers BERT adds up are token, segment, position.
    hovers = [
        f"{position_label} {i} · {token} · {segment_labels[int(segment)]}"
        for i, (token, segment) in enumerate(zip(tokens, segment_ids))
    ]
    return token_boxes(
        [[token, str(i)] for i, token in enumerate(tokens)],
        [CELL_COLOURS[code] for code in codes],
        hovers=hovers,
        legend_entries=list(zip(segment_labels, LEGEND_COLOURS)),
        title=title,
    )


def layout_of(tokens: Sequence[str], special: Sequence[bool], parts: Sequence[str] = ("A", "B")) -> str:
    """The input's frame as the model's own tokens write it, each run of text as its name in ``parts``:
    "[CLS] A [SEP] B [SEP]" for BERT, "<s> A </s> </s> B </s>" for RoBERTa."""
    written: list[str] = []
    for token, flag in zip(tokens, special):
        if flag:
            written.append(token.strip())
        elif not written or written[-1] not in parts:  # the first token of a run of text
            written.append(parts[min(sum(w in parts for w in written), len(parts) - 1)])
    return " ".join(written)


def segment_summary(segment_ids: Sequence[int], template: str, **values) -> str:
    """How many tokens each segment holds ([CLS] and the first [SEP] count to A): {a} and {b} of ``template``, with
    ``values`` for its other placeholders (the model's own {cls} and {sep})."""
    b = sum(1 for segment in segment_ids if segment)
    return template.format(a=len(segment_ids) - b, b=b, **values)
