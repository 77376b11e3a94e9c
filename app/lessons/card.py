"""The lesson card at the top of every page while a lesson is on, and the moves between steps.

The entry script calls ``follow`` before the sidebar (a Next or Back click, or a lesson link, may ask for another
page, and the step's settings must be in place before the widgets are drawn) and ``show`` just before the page runs.
Which lesson and step is the shared settings ``lessons_name`` and ``lessons_step``: the link carries them, and in class
mode the teacher's published view carries them to the students with every other setting.

In class mode the entry passes the class's quiz (``app.classroom.session.class_quiz``): the teacher asks the step's
question as the class quiz and the reveal shows the class's answers beside the model's.
"""

from __future__ import annotations

from collections import Counter

import streamlit as st

from app.core import ui
from app.core.i18n import lang, t
from app.core.navigation import PAGE_FILES, PAGES, pages
from app.core.settings import url_value
from app.core.state import SETTINGS, PageContext
from app.core.tokens import escape_markdown
from app.lessons.data import Lesson, Step, lessons
from app.lessons.reveals import Reveal, reveal

ANSWERS_POLL = 2.0  # seconds: the teacher's count of the class's answers while a question is open
HIGHLIGHT_COLOR = "#D55E00"  # Okabe-Ito vermilion: seen by every kind of colour vision, on light and dark themes


def active() -> tuple[Lesson, Step, int] | None:
    """The lesson, step and step number the settings name, when both exist."""
    lesson = lessons().get(st.session_state["lessons_name"])
    number = st.session_state["lessons_step"]
    if lesson is None or not 1 <= number <= len(lesson.steps):
        return None
    return lesson, lesson.steps[number - 1], number


def _apply(step: Step, only_unset: bool = False) -> None:
    """Give the step's page the step's settings (parsed as a link's would be); ``only_unset``: those the link
    does not name."""
    for name, value in step.settings_in(lang()).items():
        if only_unset and name in st.query_params:
            continue
        if name == "text":
            st.session_state["text"] = value
        else:
            st.session_state[name] = SETTINGS[name].parse(url_value(value))


def _enter(name: str, number: int) -> None:
    """Callback of Start, Next and Back: the step's settings now, its page at the entry's next look."""
    st.session_state["lessons_name"], st.session_state["lessons_step"] = name, number
    step = lessons()[name].steps[number - 1]
    _apply(step)
    st.session_state["_lessons_goto"] = step.page


def start(name: str) -> None:
    _enter(name, 1)


def leave() -> None:
    st.session_state["lessons_name"] = SETTINGS["lessons_name"].default
    st.session_state["lessons_step"] = SETTINGS["lessons_step"].default


def _reveal_now(name: str, number: int, answer_key: str, must_answer: bool) -> None:
    """Reveal, once the question is answered. Read here, not passed in: a typed answer reaches the session with the
    click itself, after the button was drawn."""
    if must_answer and not (st.session_state.get(answer_key) or "").strip():
        st.session_state["_lessons_answer_first"] = (name, number)
        return
    st.session_state["lessons_revealed"] = (name, number)


def _send(class_quiz, answer_key: str) -> None:
    """A student's answer to the class's question, as typed or chosen at the moment of the click."""
    given = (st.session_state.get(answer_key) or "").strip()
    if given:
        class_quiz.guess(given)


def _page_name(page) -> str:
    return page.url_path or PAGE_FILES[0]  # the default page lives at "/"


def follow(page) -> None:
    """Before the sidebar: go to the page a Next/Back click asked for; a session opened by a lesson link goes to
    that step's page, with the step's settings that the link does not set itself."""
    wanted = st.session_state.pop("_lessons_goto", None)
    if not st.session_state.get("_lessons_link_read"):
        st.session_state["_lessons_link_read"] = True
        now = active()
        if now is not None and "lessons_name" in st.query_params:
            _apply(now[1], only_unset=True)
            wanted = now[1].page
    if wanted is not None and wanted != _page_name(page):
        for candidate in pages():
            if _page_name(candidate) == wanted:
                st.switch_page(candidate)


def picker() -> None:
    """The lessons one can start, each with a button: on the overview page and the lessons page."""
    language = lang()
    with st.container(border=True, key="lessons_picker"):
        st.markdown("**" + t("lessons.picker_title") + "**")
        for name, lesson in lessons().items():
            text_column, button_column = st.columns([5, 1], vertical_alignment="center")
            text_column.markdown(
                f"**{lesson.title[language]}** · {t('lessons.steps', n=len(lesson.steps))}  \n"
                f"{lesson.summary[language]}"
            )
            button_column.button(
                t("lessons.start"), key=f"lessons_start_{name}", on_click=start, args=(name,), type="primary"
            )


def _highlight(key: str) -> None:
    st.html(
        f"<style>.st-key-{key} {{ outline: 3px solid {HIGHLIGHT_COLOR}; outline-offset: 6px; border-radius: 6px; }}"
        "</style>"
    )


def _problem(message: str, lesson: Lesson | None = None) -> None:
    """A link naming no lesson, or a step outside it: said plainly, the page below works as ever."""
    with st.container(border=True, key="lessons_card"):
        st.warning(message)
        with st.container(horizontal=True):
            if lesson is not None:
                st.button(t("lessons.first_step"), key="lessons_first", on_click=_enter, args=(lesson.name, 1))
            st.button(t("lessons.leave"), key="lessons_leave_problem", on_click=leave)


def show(page, context: PageContext, class_quiz=None) -> None:
    """The card at the top of the page while a lesson is on; the lesson picker on the overview page otherwise."""
    name = st.session_state["lessons_name"]
    page_name = _page_name(page)
    if not name:
        if page_name == PAGE_FILES[0]:  # the overview: where a reader starts
            picker()
        return
    lesson = lessons().get(name)
    if lesson is None:
        _problem(t("lessons.unknown", name=escape_markdown(name)))
        return
    number = st.session_state["lessons_step"]
    if not 1 <= number <= len(lesson.steps):
        _problem(t("lessons.no_step", step=number, title=lesson.title[context.lang], n=len(lesson.steps)), lesson)
        return
    step = lesson.steps[number - 1]
    if page_name == step.page:
        _highlight(step.highlight)
    following = class_quiz is not None and class_quiz.role == "student" and class_quiz.following
    with st.container(border=True, key="lessons_card"):
        st.markdown(
            f"**{t('lessons.card_label')} · {lesson.title[context.lang]}** · "
            + t("lessons.step_of", k=number, n=len(lesson.steps))
        )
        st.markdown(step.instruction[context.lang])
        if page_name != step.page:
            target = next(p for p in pages() if _page_name(p) == step.page)
            st.page_link(target, label=t("lessons.go_to_page", page=target.title), icon=PAGES[step.page])
        _question(lesson, step, number, context, class_quiz)
        with st.container(horizontal=True, key="lessons_moves"):
            if not following:  # a following student moves with the teacher
                st.button(
                    t("lessons.back"),
                    key="lessons_back",
                    on_click=_enter,
                    args=(name, number - 1),
                    disabled=number == 1,
                    icon=":material/arrow_back:",
                )
                st.button(
                    t("lessons.next"),
                    key="lessons_next",
                    on_click=_enter,
                    args=(name, number + 1),
                    disabled=number == len(lesson.steps),
                    type="primary",
                    icon=":material/arrow_forward:",
                )
            st.button(t("lessons.leave"), key="lessons_leave", on_click=leave)


def _question(lesson: Lesson, step: Step, number: int, context: PageContext, class_quiz) -> None:
    language = context.lang
    question = step.question[language]
    answer_key = f"lessons_answer_{lesson.name}_{number}"
    options = step.options(language)
    if options:
        st.radio(
            f"**{question}**", tuple(options), format_func=options.get, index=None, horizontal=True, key=answer_key
        )
    else:
        st.text_input(f"**{question}**", max_chars=40, key=answer_key)
    # A typed word is compared with the model's words as the model reads it (機 typed is the model's 机).
    given = context.bundle.tokenizer.folded((st.session_state.get(answer_key) or "").strip())
    quiz = class_quiz.current() if class_quiz is not None else None
    class_question = quiz if quiz is not None and quiz.sentence == question else None
    revealed = st.session_state.get("lessons_revealed") == (lesson.name, number)
    if class_quiz is not None and class_quiz.role == "teacher":
        if class_question is None:
            st.button(t("lessons.ask_class"), key="lessons_ask", on_click=class_quiz.ask, args=(question,))
        elif not class_question.revealed and not revealed:  # revealing now: the class's answers follow below
            _answer_count(class_quiz, question)
    if class_quiz is not None and class_quiz.role == "student" and class_question is not None:
        # The class's question: the student sends an answer, and the teacher's reveal shows it to everyone.
        if not class_question.revealed:
            st.button(t("lessons.send"), key="lessons_send", on_click=_send, args=(class_quiz, answer_key))
            mine = class_quiz.sent()
            if mine is not None:
                st.caption(t("lessons.sent", answer=escape_markdown(options.get(mine, mine))))
            return
        revealed = True
    elif not revealed:
        # The teacher may reveal without answering: the class answered.
        must_answer = not (class_quiz is not None and class_quiz.role == "teacher")
        st.button(
            t("lessons.reveal"),
            key="lessons_reveal",
            on_click=_reveal_now,
            args=(lesson.name, number, answer_key, must_answer),
        )
        if st.session_state.pop("_lessons_answer_first", None) == (lesson.name, number):
            st.caption(t("lessons.answer_first"))
        return
    shown = ui.run_or_explain(reveal, context, step.reveal)  # the reader may have emptied or garbled the sentence
    if shown is None:
        return
    _verdict(shown, given, options)
    if class_question is not None:
        if class_quiz.role == "teacher" and not class_question.revealed:
            # Only what the model scored: a choice the reveal computed without probabilities stores none, and the class
            # page then shows no "top words" chart for it (the card shows the answer and the class's counts).
            class_quiz.reveal(shown.ranked)
            class_question = class_quiz.current()
        _class_answers(class_question.guesses, shown, options)


@st.fragment(run_every=ANSWERS_POLL)
def _answer_count(class_quiz, question: str) -> None:
    """How many students have answered, kept fresh while the teacher waits (a small read, not a page run)."""
    quiz = class_quiz.current()
    if quiz is not None and quiz.sentence == question:
        st.caption(t("lessons.class_answered", n=len(quiz.guesses)))


def _verdict(shown: Reveal, given: str, options: dict[str, str]) -> None:
    right = given.lower() == shown.answer or given.lower() in shown.accepted
    if not given:
        st.info(shown.text)
    elif right:
        st.success(t("lessons.right") + " " + shown.text)
    else:
        yours = options.get(given, given)
        st.info(t("lessons.yours", answer=escape_markdown(yours)) + " " + shown.text)


def _class_answers(guesses: dict[str, str], shown: Reveal, options: dict[str, str]) -> None:
    """The class's answers, most common first, the model's marked: counted from the class quiz's guesses."""
    counts = Counter(guesses.values()).most_common()
    if not counts:
        st.caption(t("lessons.class_none"))
        return
    lines = [
        t("lessons.class_line", answer=escape_markdown(options.get(answer, answer)), n=n)
        + (" ✓" if answer == shown.answer or answer in shown.accepted else "")
        for answer, n in counts
    ]
    st.markdown(
        t("lessons.class_header", n=sum(n for _, n in counts)) + "\n\n" + "\n".join(f"- {line}" for line in lines)
    )
