"""What class mode remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {}

SESSION: dict[str, str] = {
    "_class_link_read": "whether a ?room= link was already read this session",
    "class_resumed": "when this session took its place in a class back from the browser's cookies (a reconnect)",
    "class_cookie": "what this session last wrote to the browser's class cookie (its place in a class)",
    "class_beat": "when this session last told the room it is present (a heartbeat at most every HEARTBEAT_EVERY)",
    "class_follow": "whether a student follows the teacher (False: exploring freely)",
    "class_store_down": "whether the rooms' store (Redis) failed to answer at this session's last look",
    "class_guess_log": "(question, guesses sent for it): a student's budget of guesses per question",
    "class_guess_error": "why a student's last guess was refused",
    "class_notice": "a notice key shown once on the next run (why a student was brought back, the room ended)",
    "class_published": "the view the teacher last sent",
    "class_quiz_checked": "the room version at which an exploring student last looked for a new question",
    "class_quiz_number": "the question a student's guess answers",
    "class_quiz_seen": "the question an exploring student had already seen when they left",
    "class_room": "the room code this session belongs to",
    "class_seen": "the room version a student last took",
    "class_student": "a random id for presence and guesses",
    "class_token": "the teacher's secret token: only the session that started the class has it",
    "classroom_ask_problem": "why the teacher's question could not be put",
    "classroom_code": "the join-by-code box",
    "classroom_guess": "the student's guess box",
    "classroom_quiz_text": "the teacher's question box",
}

# The example sentences the page offers (string keys by kind), which the model card lists (app/core/examples.py).
EXAMPLES = {"fill": ("quiz_default",)}
