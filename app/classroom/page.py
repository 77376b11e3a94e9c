"""Class mode: the teacher starts a class (a code, a QR code, the head count), students join and follow the
teacher's page and settings; the teacher puts a fill-in question to the class and reveals the class's guesses
beside BERT's top 5, which teaches that BERT ranks plausible words rather than knowing the answer.

The rooms live in ``app.classroom.store``; ``app.classroom.session`` publishes and follows."""

from __future__ import annotations

from dataclasses import asdict
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from app.classroom import session
from app.classroom.charts import guess_bars, guesses_summary
from app.classroom.store import MAX_GUESS, Quiz, RoomGone, StoreDown, bert_word, tally
from app.core import models, ui
from app.core.errors import explain
from app.core.i18n import t
from app.core.shared_charts import prediction_bars, predictions_summary
from app.core.state import PageContext
from app.core.tokens import escape_markdown
from model.inference import InputError
from model.results import Prediction

ANSWERS_POLL = 2.0  # seconds: the teacher's count of answers while a question is open
TOP_K = 5


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("classroom.title"), t("classroom.lead"))
    class_notice()
    role = session.role()
    try:
        if role == "teacher":
            teacher_view(context.spec)
        elif role == "student":
            student_view()
        else:
            teach_or_join()
    except StoreDown:  # Redis stopped mid-class: the rest of the app works, and the class resumes by itself
        st.warning(t("classroom.store_down"))


def class_notice() -> None:
    """A notice the class left for this reader (a bad code, no such room, the store down), shown once."""
    message = st.session_state.pop("class_notice", None)
    if message:
        st.warning(t(f"classroom.notice_{message}"))
    if session.resumed_lately():
        st.warning(t("classroom.notice_resumed"))


def join_link(code: str, teacher_token: str | None = None) -> str:
    """The address a student opens to join: this app's root with ``?room=``; the browser's own address when
    Streamlit knows it (the teacher's, as the class reaches it), else this machine's default. With
    ``teacher_token``: the teacher's private link that takes the class back after a reload."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    root = parts.path.rsplit("/", 1)[0] if parts.path.endswith("/classroom") else parts.path.rstrip("/")
    query = urlencode({session.ROOM_PARAM: code} | ({session.TEACHER_PARAM: teacher_token} if teacher_token else {}))
    return f"{parts.scheme}://{parts.netloc}{root}/?{query}"


def qr_svg(link: str) -> str:
    """The join link as a QR code, drawn here (no service): an SVG that Streamlit inlines as a data URI, so the
    image cannot go missing when a fragment reruns and Streamlit drops the media files of the previous run."""
    return segno.make(link, error="m").svg_inline(scale=8, border=2, dark="black", light="white")


def _join_typed() -> None:
    session.join(st.session_state.get("classroom_code", ""))


def teach_or_join() -> None:
    teach, join = st.columns(2, gap="large")
    with teach:
        st.subheader(t("classroom.teach_header"))
        st.markdown(t("classroom.teach_note"))
        st.button(t("classroom.start_button"), on_click=session.start_class, type="primary", key="classroom_start")
    with join:
        st.subheader(t("classroom.join_header"))
        with st.form("classroom_join", border=False):
            st.text_input(
                t("classroom.code_label"),
                max_chars=12,
                placeholder=t("classroom.code_placeholder"),
                key="classroom_code",
            )
            st.form_submit_button(t("classroom.join_button"), on_click=_join_typed)


def quiz_results(quiz: Quiz) -> None:
    """The class's guesses beside BERT's top 5 (as the teacher's reveal stored them in the room), and how many
    students guessed what BERT guessed."""
    if not quiz.answer:
        return
    predictions = [Prediction(**prediction) for prediction in quiz.answer]
    counted = tally(quiz.guesses, [p.token for p in predictions])
    st.subheader(t("classroom.results_header"))
    if counted.answered:
        st.markdown(
            t(
                "classroom.tally",
                answered=counted.answered,
                top_count=counted.top_word_count,
                top=escape_markdown(counted.top_word),
                in_top=counted.in_top,
            )
        )
    else:
        st.info(t("classroom.nobody_answered"))
    class_column, bert_column = st.columns(2)
    if counted.answered:
        with class_column:
            bert_words = {bert_word(p.token) for p in predictions}
            chart = guess_bars(
                counted.counts,
                bert_words,
                title=t("classroom.class_chart_title"),
                axis_title=t("classroom.students_axis"),
                others_label=t("classroom.others"),
            )
            ui.plot(
                chart,
                key="classroom_guesses",
                summary=guesses_summary(
                    counted.counts, bert_words, t("classroom.summary_guesses"), t("classroom.summary_match")
                ),
            )
            st.caption(t("classroom.chart_match"))
    with bert_column:
        ui.plot(
            prediction_bars(predictions, title=t("classroom.bert_chart_title")),
            key="classroom_bert",
            summary=predictions_summary(predictions, t("common.summary_most_likely")),
        )
    st.markdown(t("classroom.ranking_note"))


def show_question(quiz: Quiz) -> None:
    st.markdown(t("classroom.quiz_asked", number=quiz.number))
    st.markdown("#### " + escape_markdown(quiz.sentence))


def _ask_typed(spec: str) -> None:
    """Put the typed sentence to the class once it has exactly one [MASK] that the model sees."""
    sentence = st.session_state.get("classroom_quiz_text", "")
    masks = sentence.count("[MASK]")
    problem = t("classroom.quiz_one_mask", n=masks) if masks != 1 else None
    if problem is None:
        try:
            seen = len(models.fill_mask(spec, sentence, TOP_K, False).masks)
        except InputError as error:
            problem = explain(error)
        else:
            problem = t("classroom.quiz_one_mask", n=seen) if seen != 1 else None  # cut off past the length
    if problem is None:
        session.ask(sentence)
    else:
        st.session_state["classroom_ask_problem"] = problem


def _reveal(spec: str) -> None:
    """BERT's top 5 for the question, computed here once for the whole class and stored with the reveal: every
    student's page reads it from the room instead of running the model itself."""
    try:
        quiz = session.room_store().quiz(session.room_code())
    except RoomGone:
        return  # the sidebar's panel says the class ended
    except StoreDown:
        session.notice("store_down")
        return
    if quiz is None or quiz.revealed:
        return  # revealed from this teacher's other tab meanwhile
    try:
        result = models.fill_mask(spec, quiz.sentence, TOP_K, False)
    except InputError as error:  # the question was checked when asked; the model may have changed since
        st.session_state["classroom_ask_problem"] = explain(error)
        return
    if len(result.masks) != 1:
        st.session_state["classroom_ask_problem"] = t("classroom.quiz_one_mask", n=len(result.masks))
        return
    session.reveal([asdict(prediction) for prediction in result.masks[0].predictions])


def teacher_view(spec: str) -> None:
    code = session.room_code()
    link = join_link(code)
    info, qr = st.columns([3, 2], gap="large")
    with info:
        st.markdown("## " + t("classroom.room_code", code=code))
        st.markdown(t("classroom.join_link"))
        st.code(link, language=None, wrap_lines=True)
        head_count()
        st.button(t("classroom.end_button"), on_click=session.end_class, key="classroom_end")
        with st.expander(t("classroom.teacher_link_title")):
            st.markdown(t("classroom.teacher_link_note"))
            st.code(join_link(code, st.session_state["class_token"]), language=None, wrap_lines=True)
    with qr:
        st.image(qr_svg(link), caption=t("classroom.qr_caption"), width=240)

    st.header(t("classroom.quiz_header"))
    st.text_input(
        t("classroom.quiz_sentence"), value=t("classroom.quiz_default"), max_chars=300, key="classroom_quiz_text"
    )
    st.button(t("classroom.ask_button"), on_click=_ask_typed, args=(spec,), key="classroom_ask_button", type="primary")
    problem = st.session_state.pop("classroom_ask_problem", None)
    if problem:
        st.warning(problem)
    quiz = session.room_store().quiz(code)
    if quiz is None:
        return
    show_question(quiz)
    if quiz.revealed:
        quiz_results(quiz)
        return
    answer_count(code)
    st.button(t("classroom.reveal_button"), on_click=_reveal, args=(spec,), key="classroom_reveal")


@st.fragment(run_every=ANSWERS_POLL)
def head_count() -> None:
    try:
        n = session.room_store().students(session.room_code())
    except (RoomGone, StoreDown):
        return  # the sidebar's panel says so
    st.markdown(t("classroom.students", n=n))


@st.fragment(run_every=ANSWERS_POLL)
def answer_count(code: str) -> None:
    try:
        store = session.room_store()
        quiz, present = store.quiz(code), store.students(code)
    except (RoomGone, StoreDown):
        return
    if quiz is not None:
        st.markdown(t("classroom.answered", n=len(quiz.guesses), present=max(present, len(quiz.guesses))))


def _send_guess() -> None:
    session.send_guess(st.session_state.get("classroom_guess", ""))


def student_view() -> None:
    code = session.room_code()
    st.markdown(t("classroom.student_intro", code=code))
    try:
        quiz = session.room_store().quiz(code)
    except RoomGone:
        return  # the sidebar's poll ends the class on its next look
    if quiz is None:
        st.info(t("classroom.no_question"))
        return
    show_question(quiz)
    if quiz.revealed:
        quiz_results(quiz)
        return
    if st.session_state.get("class_quiz_number") != quiz.number:  # a new question starts with an empty box
        st.session_state["class_quiz_number"] = quiz.number
        st.session_state["classroom_guess"] = ""
    with st.form("classroom_guess_form", border=False):
        st.text_input(t("classroom.guess_label"), max_chars=MAX_GUESS, key="classroom_guess")
        st.form_submit_button(t("classroom.send_button"), on_click=_send_guess, type="primary")
    problem = st.session_state.pop("class_guess_error", None)
    if problem:
        st.warning(t(f"classroom.guess_{problem}"))
    mine = session.my_guess(quiz)
    if mine is not None:
        st.success(t("classroom.guess_sent", guess=escape_markdown(mine)))
