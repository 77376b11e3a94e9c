"""A Streamlit session in a class: the teacher's session publishes its view, a student's follows it.

The entry script calls ``follow_teacher`` before it draws the sidebar (a following student takes the teacher's
page and settings, so the widgets are drawn with them) and ``publish_and_show`` after it wrote the URL (the
teacher's view is the URL's settings and the page; publishing happens only when that changed). A small
fragment in the sidebar polls the room's version about once a second and asks for a full run when the
teacher changed something.

Session state: ``class_room`` (the code), ``class_token`` (the teacher's secret; only the session holding it
may change what the class sees), ``class_student`` (a random id for presence and guesses), ``class_follow``,
``class_seen`` (the room version a student last took), ``class_published`` (the view the teacher last sent),
``class_quiz_seen`` (the question an exploring student had already seen when they left) and
``class_quiz_checked`` (the room version at which an exploring student last looked for a new question).

A new question is the teacher asking the whole class: it brings an exploring student back to the teacher
(who asks from the class page, so the student lands on the question), with a notice saying why.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass

import streamlit as st

from app.classroom.store import (
    GuessError,
    NotTeacher,
    Quiz,
    RoomGone,
    RoomStore,
    StoreDown,
    clean_code,
    normalise_guess,
    store_from_env,
)
from app.core.i18n import t
from app.core.navigation import PAGE_FILES, PAGES_DIR, pages
from app.core.state import apply_params, url_params

STUDENT_POLL = 1.0  # seconds: students follow the teacher within about this
TEACHER_POLL = 3.0  # the teacher's count of students, and their heartbeat while the tab is open
HEARTBEAT_EVERY = 5.0  # seconds between a session's presence writes (well inside PRESENCE_SECONDS)
ROOM_PARAM = "room"  # ?room=CODE in a link joins the class
# ?room=CODE&teacher=TOKEN takes the class back after the teacher's tab was reloaded or closed. The entry writes
# the address bar from the session's settings, which never hold the token, so it leaves the projected address.
TEACHER_PARAM = "teacher"
# This browser's place in a class, kept in a cookie for as long as the browser runs, never in the address bar (the
# projector shows the teacher's): a tab whose server went away (a replica killed, a restart) reconnects through the
# balancer to another replica as a new session, which reads the cookie and takes the same place back: the teacher
# their room, a student their id, and with it their presence and the answer they sent. One cookie a role, so that a
# teacher trying the class as a student in a second tab keeps both. Cleared when the class ends or is left.
CLASS_COOKIES = {"teacher": "bert_lab_teacher", "student": "bert_lab_student"}
STUDENT_ID = re.compile(r"[0-9a-f]{16}")  # as ``join`` makes them: a cookie that says otherwise is not ours
RESUMED_NOTICE = 30.0  # seconds that a tab which took its place back says so


@st.cache_resource(show_spinner=False)
def room_store() -> RoomStore:
    """One store per server process: the rooms themselves, or the connection to Redis that holds them."""
    return store_from_env()


def role() -> str | None:
    if not st.session_state.get("class_room"):
        return None
    return "teacher" if st.session_state.get("class_token") else "student"


def room_code() -> str | None:
    return st.session_state.get("class_room")


def browser_cookie(as_role: str) -> str | None:
    """The class cookie for ``as_role`` that the browser sent with this session's connection (a session without a
    browser, such as Streamlit's AppTest, has none: its context hands out stand-ins)."""
    value = st.context.cookies.get(CLASS_COOKIES[as_role])
    return value if isinstance(value, str) else None


def _remembered(as_role: str) -> tuple[str, str] | None:
    """(room code, the teacher's token or the student's id) that this browser's cookie for ``as_role`` holds."""
    code, _, secret = (browser_cookie(as_role) or "").partition(":")
    code = clean_code(code) if code else None
    return (code, secret) if code is not None and secret else None


def _place() -> tuple[str, str] | None:
    """(role, cookie value) that this session's place in a class is now; None outside a class."""
    current = role()
    if current is None:
        return None
    secret = st.session_state["class_token" if current == "teacher" else "class_student"]
    return current, f"{room_code()}:{secret}"


def remember_place() -> None:
    """Write the class cookies in the run where this session's place in a class changed: a script in the page,
    since a server cannot set a cookie over its websocket. Tokens and ids are URL-safe, codes letters and digits."""
    place, written = _place(), st.session_state.get("class_cookie")
    if place == written:
        return
    st.session_state["class_cookie"] = place
    cookies = []
    if written is not None and (place is None or place[0] != written[0]):
        cookies.append(f"{CLASS_COOKIES[written[0]]}=; max-age=0")
    if place is not None:
        cookies.append(f"{CLASS_COOKIES[place[0]]}={place[1]}")
    # json.dumps makes each a JavaScript string; "</" is escaped so that no value could close the script element.
    script = "".join(f"document.cookie = {json.dumps(cookie + '; path=/; SameSite=Strict')};" for cookie in cookies)
    script = script.replace("</", "<\\/")
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def notice(key: str) -> None:
    """A message for the sidebar's class panel to show once (why a join failed, why the class ended)."""
    st.session_state["class_notice"] = key


def resumed_lately() -> bool:
    """Whether this session took its place in a class back from the browser's cookies (its tab reconnected to
    another replica, or was reloaded) in the last ``RESUMED_NOTICE`` seconds: the notice that says so stays that
    long rather than for one run, which a student's next full run (the teacher's tab republishing as it comes back
    too) can replace before it is drawn."""
    recent = time.monotonic() - st.session_state.get("class_resumed", float("-inf")) < RESUMED_NOTICE
    return recent and role() is not None  # a remembered room that has ended since was not taken back


def store_is_down() -> bool:
    """Whether the rooms' store stopped answering at this session's last look (Redis stopped mid-class)."""
    return bool(st.session_state.get("class_store_down"))


def _store_answered(answered: bool) -> None:
    """Remember how the store's last call went: the class panel says so while it does not answer, and the room is
    kept, so the class goes on by itself when it answers again."""
    if answered:
        st.session_state.pop("class_store_down", None)
    else:
        st.session_state["class_store_down"] = True


def _forget_room(reason: str | None = None) -> None:
    for key in (
        "class_room",
        "class_token",
        "class_student",
        "class_follow",
        "class_seen",
        "class_published",
        "class_quiz_seen",
        "class_quiz_checked",
    ):
        st.session_state.pop(key, None)
    if reason:
        notice(reason)


def start_class() -> None:
    try:
        code, token = room_store().create()
    except StoreDown:
        notice("store_down")
        return
    _forget_room()
    st.session_state.update(class_room=code, class_token=token)


def end_class() -> None:
    try:
        room_store().close(room_code(), st.session_state.get("class_token"))
    except (RoomGone, NotTeacher):
        pass  # already gone: nothing left to close
    except StoreDown:
        notice("store_down")
        return  # still the room's teacher: ending it must wait until the store answers
    _forget_room()


def reclaim(raw_code: str, token: str) -> bool:
    """Take back a class this browser's teacher started in an earlier session: the teacher's private link
    carries the room's token, which the store checks."""
    code = clean_code(raw_code)
    if code is None:
        notice("bad_code")
        return False
    try:
        room_store().teacher_heartbeat(code, token)
    except RoomGone:
        notice("no_room")
        return False
    except NotTeacher:
        notice("not_teacher")
        return False
    except StoreDown:
        notice("store_down")
        return False
    _forget_room()
    st.session_state.update(class_room=code, class_token=token)
    return True


def join(raw: str, student: str | None = None) -> bool:
    """Join the room a typed or linked code names, as ``student`` (an id this browser had in it) or a new student;
    False (with a notice saying why) when there is none."""
    code = clean_code(raw)
    if code is None:
        notice("bad_code")
        return False
    student = student or secrets.token_hex(8)
    try:
        room_store().student_heartbeat(code, student)
    except RoomGone:
        notice("no_room")
        return False
    except StoreDown:
        notice("store_down")
        return False
    _forget_room()
    st.session_state.update(class_room=code, class_student=student, class_follow=True, class_seen=-1)
    st.session_state["class_beat"] = time.monotonic()
    return True


def leave() -> None:
    _forget_room()


def _quiz_number(quiz) -> int:
    return quiz.number if quiz is not None else 0


def explore() -> None:
    try:  # the question already asked stays the student's to answer or not; a later one calls them back
        st.session_state["class_quiz_seen"] = _quiz_number(room_store().quiz(room_code()))
    except RoomGone:
        return  # the poll ends the class on its next look
    st.session_state["class_follow"] = False


def back_to_teacher() -> None:
    st.session_state["class_follow"] = True
    st.session_state["class_seen"] = -1  # take the teacher's current view, even if it has not changed since


def _page_name(page) -> str:
    return page.url_path or PAGE_FILES[0]  # the default page lives at "/"


def _heartbeat_due() -> bool:
    now = time.monotonic()
    if now - st.session_state.get("class_beat", float("-inf")) < HEARTBEAT_EVERY:
        return False
    st.session_state["class_beat"] = now
    return True


def _called_to_quiz(store: RoomStore, code: str, version: int) -> bool:
    """An exploring student goes back to the teacher when the teacher has asked a question since they left:
    read once per room version (a version moves with every change the teacher makes)."""
    if st.session_state.get("class_quiz_checked") == version:
        return False
    st.session_state["class_quiz_checked"] = version
    quiz = store.quiz(code)
    if quiz is None or quiz.revealed or quiz.number <= st.session_state.get("class_quiz_seen", 0):
        return False
    back_to_teacher()
    notice("quiz")
    return True


def follow_teacher(page) -> None:
    """Before the sidebar: join from a ``?room=`` link on a session's first run; a following student takes the
    teacher's settings and page when the room's version moved on."""
    if not st.session_state.get("_class_link_read"):
        st.session_state["_class_link_read"] = True  # once: leaving must not rejoin from the address bar
        linked = st.query_params.get(ROOM_PARAM)
        token = st.query_params.get(TEACHER_PARAM)
        if linked is not None and token:
            reclaim(linked, token)
        elif linked is not None and clean_code(linked) != room_code():
            join(linked, _remembered_student(linked))
        elif linked is None:
            _resume_teacher()
    if role() != "student":
        return
    store, code = room_store(), room_code()
    try:
        if _heartbeat_due():
            store.student_heartbeat(code, st.session_state["class_student"])
        version = store.version(code)
        _store_answered(True)
        if version == st.session_state.get("class_seen"):
            return
        if not st.session_state.get("class_follow") and not _called_to_quiz(store, code, version):
            return
        wanted = _take_view(store, code)
    except RoomGone:
        _forget_room("ended")
        return
    except StoreDown:
        _store_answered(False)
        return
    _store_answered(True)
    _go_to(wanted, _page_name(page))


def _remembered_student(linked: str) -> str | None:
    """The id this browser had as a student of the linked room: its tab reconnected, or was reloaded."""
    remembered = _remembered("student")
    if remembered is None or remembered[0] != clean_code(linked) or not STUDENT_ID.fullmatch(remembered[1]):
        return None
    st.session_state["class_resumed"] = time.monotonic()
    return remembered[1]


def _resume_teacher() -> None:
    """The class this browser's teacher had, when a new session opens without a link (its tab reconnected to
    another replica, or was reloaded); a class that has ended since is forgotten, its cookie cleared."""
    remembered = _remembered("teacher")
    if remembered is None:
        return
    if reclaim(*remembered):
        st.session_state["class_resumed"] = time.monotonic()
        return
    st.session_state.pop("class_notice", None)  # a class that ended while away is no news to a new session
    # What the browser holds, so that remember_place, finding this session outside a class, clears it.
    st.session_state["class_cookie"] = ("teacher", browser_cookie("teacher"))


def _take_view(store: RoomStore, code: str) -> str | None:
    """Take the teacher's current settings into this session; returns the page the teacher shows (None before
    the teacher has shown anything)."""
    version, view = store.view(code)
    st.session_state["class_seen"] = version
    if not view:
        return None
    apply_params(view.get("params", {}))
    return view.get("page")


def _go_to(wanted: str | None, current: str) -> None:
    if wanted is not None and wanted != current:
        for candidate in pages():
            if _page_name(candidate) == wanted:
                st.switch_page(candidate)


def publish_and_show(page) -> None:
    """After the URL is written: the teacher's view goes to the room when it changed; then the class panel."""
    if role() == "teacher":
        view = {"page": _page_name(page), "params": url_params()}
        encoded = json.dumps(view, sort_keys=True, ensure_ascii=False)
        try:
            if encoded != st.session_state.get("class_published"):
                room_store().publish(room_code(), st.session_state["class_token"], view)
                st.session_state["class_published"] = encoded
            elif _heartbeat_due():
                room_store().teacher_heartbeat(room_code(), st.session_state["class_token"])
        except (RoomGone, NotTeacher):
            _forget_room("expired")
        except StoreDown:  # published again on the next run, since class_published did not change
            _store_answered(False)
    with st.sidebar:
        _class_panel(_page_name(page))
        remember_place()


def _class_panel(page_name: str) -> None:
    # The class page shows a notice itself, beside the code box (a phone's sidebar is closed).
    message = None if page_name == "classroom" else st.session_state.pop("class_notice", None)
    if message:
        st.warning(t(f"classroom.notice_{message}"))
    if resumed_lately() and page_name != "classroom":
        st.warning(t("classroom.notice_resumed"))
    current = role()
    if current is None:
        return
    st.divider()
    if store_is_down():
        st.warning(t("classroom.store_down"))
    if current == "teacher":
        _teacher_status()
        st.page_link(str(PAGES_DIR / "classroom.py"), label=t("classroom.open_page"), icon="🎓")
        return
    if st.session_state.get("class_follow"):
        st.caption(t("classroom.following", code=room_code()))
        st.button(t("classroom.explore_button"), on_click=explore, key="class_explore")
    else:
        st.caption(t("classroom.exploring", code=room_code()))
        st.button(t("classroom.back_button"), on_click=back_to_teacher, key="class_back", type="primary")
    st.button(t("classroom.leave_button"), on_click=leave, key="class_leave")
    _student_poll()


@st.fragment(run_every=TEACHER_POLL)
def _teacher_status() -> None:
    """The room's code and head count, kept fresh while the teacher's tab is open (which is the heartbeat)."""
    if role() != "teacher":
        return
    try:
        if _heartbeat_due():
            room_store().teacher_heartbeat(room_code(), st.session_state["class_token"])
        count = room_store().students(room_code())
    except (RoomGone, NotTeacher):
        _forget_room("expired")
        st.rerun(scope="app")
    except StoreDown:
        if not store_is_down():
            _store_answered(False)
            st.rerun(scope="app")  # the whole page: the panel's message, the class page's own
        return
    if store_is_down():
        _store_answered(True)
        st.rerun(scope="app")
    st.markdown(t("classroom.teacher_panel", code=room_code(), n=count))


@st.fragment(run_every=STUDENT_POLL)
def _student_poll() -> None:
    """One small read a second; a full run only when the teacher changed something (or the room ended).

    A follower whose teacher moved on is sent to a full run, whose first step (``follow_teacher``, before the
    sidebar and the page) takes the teacher's view and switches page: one path for both, and the page being left
    is not drawn again."""
    if role() != "student":
        return
    store, code = room_store(), room_code()
    try:
        version = store.version(code)
        if store_is_down():  # it answers again: the whole page, without the panel's message
            _store_answered(True)
            st.rerun(scope="app")
        if _heartbeat_due():
            store.student_heartbeat(code, st.session_state["class_student"])
        if version == st.session_state.get("class_seen"):
            return
        if st.session_state.get("class_follow") or _called_to_quiz(store, code, version):
            st.rerun(scope="app")
    except RoomGone:
        _forget_room("ended")
        st.rerun(scope="app")
    except StoreDown:
        if not store_is_down():
            _store_answered(False)
            st.rerun(scope="app")
        return
    st.caption(t("classroom.teacher_moved"))  # exploring: say so, the student decides when to catch up


def ask(sentence: str) -> None:
    try:
        room_store().ask(room_code(), st.session_state["class_token"], sentence)
    except StoreDown:
        notice("store_down")


def reveal(answer: list) -> None:
    """Show the class the guesses and ``answer``, BERT's top words as the teacher's session computed them once
    for the whole room (JSON values)."""
    try:
        room_store().reveal(room_code(), st.session_state["class_token"], answer)
    except StoreDown:
        notice("store_down")


# A student may change their answer to a question a few times, not flood the room: each guess is a write that every
# replica's teacher page reads back.
MAX_GUESSES_PER_QUESTION = 5


def _guess_allowed(number: int | None) -> bool:
    """Count a guess against the question's budget; False when the student has used it up."""
    asked, count = st.session_state.get("class_guess_log", (None, 0))
    count = count if asked == number else 0
    if count >= MAX_GUESSES_PER_QUESTION:
        return False
    st.session_state["class_guess_log"] = (number, count + 1)
    return True


def my_guess(quiz: Quiz | None) -> str | None:
    """This student's answer to ``quiz`` as the room counted it (read from the room, so a session that took the
    student's place back after a reconnect shows it too); None before they sent one."""
    return quiz.guesses.get(st.session_state.get("class_student")) if quiz is not None else None


def send_guess(raw: str) -> str | None:
    """The guess as counted, or None with the reason left as a notice key in ``class_guess_error``."""
    try:
        normalise_guess(raw)  # an empty box is a slip, not a guess: it costs nothing of the budget
    except GuessError as error:
        st.session_state["class_guess_error"] = error.code
        return None
    if not _guess_allowed(st.session_state.get("class_quiz_number")):
        st.session_state["class_guess_error"] = "too_many"
        return None
    try:
        return room_store().guess(room_code(), st.session_state["class_student"], raw)
    except GuessError as error:
        st.session_state["class_guess_error"] = error.code
    except RoomGone:
        _forget_room("ended")
    except StoreDown:
        st.session_state["class_guess_error"] = "store_down"
    return None


@dataclass(frozen=True)
class ClassQuiz:
    """The class quiz as a lesson's card uses it (``app.lessons.card``, handed this by the entry script: a concept
    never imports another): the teacher asks a step's question and reveals the model's answer; students answer."""

    role: str  # "teacher" or "student"
    following: bool  # a student who follows the teacher (the card then leaves the steps to the teacher)

    def current(self) -> Quiz | None:
        try:
            return room_store().quiz(room_code())
        except (RoomGone, StoreDown):
            return None  # the class panel says why

    def ask(self, question: str) -> None:
        ask(question)

    def reveal(self, ranked: list[tuple[str, float]]) -> None:
        """The model's answer as the class page's results read it: candidates with their probabilities."""
        reveal([{"token": word, "id": -1, "prob": float(prob)} for word, prob in ranked])

    def guess(self, raw: str) -> None:
        quiz = self.current()
        st.session_state["class_quiz_number"] = quiz.number if quiz is not None else None
        send_guess(raw)

    def sent(self) -> str | None:
        """This student's answer to the current question, as counted; None before they sent one."""
        return my_guess(self.current())


def class_quiz() -> ClassQuiz | None:
    """The class quiz for a lesson's card, when this session is in a class."""
    current = role()
    if current is None:
        return None
    return ClassQuiz(current, bool(st.session_state.get("class_follow")))
