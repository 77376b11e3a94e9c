"""Pure logic behind the fill-mask page: which positions to mask, the sentence with its masks, the rows of its
downloads and the iterative decoder's rounds. Nothing here imports Streamlit."""

from __future__ import annotations

from app.core.charts import distinct
from app.core.numbers import percent
from app.core.tokens import candidate_flags, escape_markdown
from model.inference import fill_in
from model.results import FillMaskResult, IterativeFillResult, LogitLensResult, PllResult
from model.tokenization import Encoding


def mask_positions(enc: Encoding, mask_token_id: int) -> list[int]:
    return [i for i, token_id in enumerate(enc.ids) if token_id == mask_token_id]


def maskable_positions(enc: Encoding, mask_token_id: int, limit: int) -> list[int]:
    """Positions a reader may click to mask: real wordpieces (no [CLS]/[SEP], no [MASK] already), the first
    ``limit`` of them so a long text does not become a wall of buttons."""
    return [i for i, flag in enumerate(candidate_flags(enc, mask_token_id)) if flag][:limit]


def pill_labels(tokens: list[str], positions: list[int]) -> dict[int, str]:
    """Button labels for the clickable tokens: Markdown-escaped, and made distinct with invisible
    zero-width spaces, because a pills widget reports its selection by label and two "the" would merge."""
    return dict(zip(positions, distinct([escape_markdown(tokens[p]) for p in positions])))


def readable_tokens(tokens: list[str], surface: list[str]) -> list[str]:
    """The tokens, with every [UNK] replaced by the characters it stands for, so a reader can tell
    one unknown character from another (the model itself still sees [UNK])."""
    return [text if token == "[UNK]" and text else token for token, text in zip(tokens, surface)]


def context_around(tokens: list[str], special: list[bool], index: int, limit: int = 12) -> tuple[str, str]:
    """The wordpieces left and right of ``index`` (without the ones ``special`` flags), at most ``limit``
    each, as text. With a causal mask the prediction at ``index`` is computed from the left part only.
    """
    body = [(i, tok) for i, (tok, flag) in enumerate(zip(tokens, special)) if not flag]
    left = [tok for i, tok in body if i < index]
    right = [tok for i, tok in body if i > index]
    left_text = ("… " if len(left) > limit else "") + " ".join(left[-limit:])
    right_text = " ".join(right[:limit]) + (" …" if len(right) > limit else "")
    return left_text, right_text


def prediction_rows(results: dict[str, FillMaskResult]) -> list[list]:
    """One row per (attention kind, mask, rank) for the CSV download."""
    rows = []
    for kind, result in results.items():
        for number, mask in enumerate(result.masks, start=1):
            for rank, p in enumerate(mask.predictions, start=1):
                rows.append([kind, number, mask.index, rank, p.token, p.id, round(p.prob, 6)])
    return rows


PREDICTION_HEADER = ["attention", "mask", "position", "rank", "token", "id", "probability"]


# Several masks, and scoring sentences --------------------------------------------------------------------


def top_guess_text(text: str, offsets: list[tuple[int, int]], result: FillMaskResult) -> str:
    """``text`` with every [MASK] replaced by its own top guess, each chosen without seeing the others'."""
    return fill_in(text, offsets, {mask.index: mask.predictions[0].token for mask in result.masks})


def tokens_before_rounds(tokens: list[str], result: IterativeFillResult) -> list[list[str]]:
    """The wordpieces as the model read them in each round of one-at-a-time filling: ``tokens`` (the input's,
    masks included) with the tokens written in the earlier rounds."""
    rounds = []
    for n in range(len(result.steps)):
        seen = list(tokens)
        for step in result.steps[:n]:
            seen[step.index] = step.chosen.token
        rounds.append(seen)
    return rounds


def iterative_rows(result: IterativeFillResult, mask_numbers: dict[int, int]) -> list[list]:
    """One row per (round, rank) for the CSV download; ``written`` marks the token put into the sentence."""
    return [
        [n, mask_numbers[step.index], step.index, rank, p.token, p.id, round(p.prob, 6), p.id == step.chosen.id]
        for n, step in enumerate(result.steps, start=1)
        for rank, p in enumerate(step.predictions, start=1)
    ]


ITERATIVE_HEADER = ["round", "mask", "position", "rank", "token", "id", "probability", "written"]


def candidate_lines(text: str, limit: int) -> tuple[list[tuple[int, str]], int]:
    """The non-blank lines of ``text`` as (line number, line), the first ``limit`` of them, and how many
    non-blank lines there were."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    return lines[:limit], len(lines)


def score_rows(results: list[PllResult]) -> list[list]:
    """One row per (sentence, token) for the CSV download, the best-scored sentence first."""
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    return [
        [rank, r.text, round(r.pll, 6), position, s.token, round(s.log_prob, 6)]
        for rank, r in enumerate(ranked, start=1)
        for position, s in enumerate(r.tokens, start=1)
    ]


SCORE_HEADER = ["rank", "sentence", "pll", "position", "token", "log_prob"]


def lens_rows(
    lens: LogitLensResult, followed: LogitLensResult | None, names: dict[str, str], embeddings: str
) -> tuple[list[str], list[list]]:
    """The logit lens as a table: per layer (``embeddings`` for layer 0) its top guesses with their
    probabilities, and the followed word's rank and probability where there is one. ``names``: the column names
    "layer", "top", and "rank" and "prob" with a {word} placeholder."""
    header = [names["layer"], names["top"]]
    if followed is not None:
        word = followed.word.token
        header += [names["rank"].format(word=word), names["prob"].format(word=word)]
    rows = []
    for depth, top in enumerate(lens.layers):
        row = [embeddings if depth == 0 else str(depth), " · ".join(f"{p.token} {percent(p.prob, 1)}" for p in top)]
        if followed is not None:
            row += [followed.word_ranks[depth], percent(followed.word_probs[depth], 1)]
        rows.append(row)
    return header, rows
