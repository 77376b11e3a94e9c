"""What a lesson remembers: which lesson and which step, both in the link (a shared link opens at that step)."""

from __future__ import annotations

from app.core.settings import Setting

# Any whole number a hand-edited link may give: a step outside the lesson (0, -3, 500) reaches the card, which says
# so, instead of silently opening step 1.
MAX_STEPS = 10**6

SETTINGS: dict[str, Setting] = {
    # Free text rather than a list of options: a link naming a lesson that does not exist must reach the card, which
    # says so, instead of silently falling back to "no lesson". None: no lesson (and nothing in the link).
    "lessons_name": Setting(None, high=60, kind="text"),
    "lessons_step": Setting(1, low=-MAX_STEPS, high=MAX_STEPS),
}

SESSION: dict[str, str] = {
    "_lessons_answer_first": "(lesson, step) whose Reveal was pressed before an answer: the card says to answer first",
    "_lessons_goto": "the page a Next/Back click asked for: the entry switches to it before drawing anything",
    "_lessons_link_read": "whether a lesson link was already followed to its step's page this session",
    "lessons_answer": "the reader's answer to the current step's question (cleared on every step change)",
    "lessons_revealed": "(lesson, step) whose answer the reader asked to see",
}
