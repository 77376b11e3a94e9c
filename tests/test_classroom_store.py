"""The class rooms' store, both backends: codes, teacher-only changes, presence, expiry, the quiz; and two
processes sharing a room through a real ``redis-server``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.classroom import store as rooms
from app.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    GuessError,
    MemoryStore,
    NotTeacher,
    RedisStore,
    RoomGone,
    clean_code,
    normalise_guess,
    tally,
)

ROOT = Path(__file__).resolve().parents[1]
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_redis(port: int, *options: str) -> subprocess.Popen:
    """A real redis-server of our own on loopback, answering once this returns."""
    server = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "no", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            client.ping()
            client.close()
            return server
        except redis.ConnectionError:
            time.sleep(0.05)
    server.terminate()
    pytest.fail("redis-server did not start")


@pytest.fixture(scope="session")
def redis_url():
    """A redis-server of our own on a free port, with nothing written to disk; stopped afterwards."""
    if not os.path.exists(REDIS_SERVER):
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is missing: tests/run.sh installs it")
        pytest.skip("redis-server is not installed")
    port = free_port()
    server = _start_redis(port, "--save", "")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        return MemoryStore()
    url = request.getfixturevalue("redis_url")
    return RedisStore(url, prefix=f"test:{request.node.name}:{time.monotonic_ns()}:")


def test_codes_are_random_short_and_unambiguous(store):
    codes = {store.create()[0] for _ in range(40)}
    assert len(codes) == 40
    for code in codes:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        assert not set(code) & set("0O1IL")
    assert len(CODE_ALPHABET) ** CODE_LENGTH > 500_000_000  # a guessed code almost never hits a room


def test_typed_codes_are_forgiven_their_case_and_spaces_but_nothing_else():
    assert clean_code(" abc-def ") == "ABCDEF"
    for bad in ("", "ABCDE", "ABCDEFG", "ABCDE0", "ABC DE!", "<script>", "x" * 10_000):
        assert clean_code(bad) is None, bad


def test_only_the_teacher_changes_what_the_class_sees(store):
    code, token = store.create()
    other_code, other_token = store.create()
    assert store.view(code) == (0, {})
    view = {"page": "attention", "params": {"text": "我去看电影", "layer": "2", "head": "3", "lang": "zh"}}
    assert store.publish(code, token, view) == 1
    assert store.view(code) == (1, view)
    for wrong in (other_token, "", None, token[:-1]):
        with pytest.raises(NotTeacher):
            store.publish(code, wrong, {"page": "overview"})
        with pytest.raises(NotTeacher):
            store.ask(code, wrong, "[MASK]")
        with pytest.raises(NotTeacher):
            store.close(code, wrong)
    assert store.view(code) == (1, view)
    assert store.version(code) == 1
    store.close(code, token)
    with pytest.raises(RoomGone):
        store.version(code)
    assert store.version(other_code) == 0
    with pytest.raises(RoomGone):
        store.view("ABCDEF")


def test_presence_counts_each_student_once(store):
    code, token = store.create()
    assert store.students(code) == 0
    for student in ("ann", "bo", "ann"):
        store.student_heartbeat(code, student)
    assert store.students(code) == 2
    with pytest.raises(RoomGone):
        store.student_heartbeat("ZZZZZZ", "ann")


def test_quiz_flow(store):
    code, token = store.create()
    assert store.quiz(code) is None
    with pytest.raises(GuessError, match="no_quiz"):
        store.guess(code, "ann", "door")
    version = store.version(code)
    assert store.ask(code, token, "  She opened a [MASK].  ") == 1
    assert store.version(code) > version  # the class's sessions notice the question
    assert store.guess(code, "ann", "  DOOR ") == "door"
    assert store.guess(code, "bo", "Window") == "window"
    assert store.guess(code, "bo", "door") == "door"  # a second guess replaces the first
    assert store.guess(code, "cy", "<script>alert(1)</script>") == "<script>alert(1)</script>"
    with pytest.raises(GuessError, match="empty"):
        store.guess(code, "dee", " \t ")
    quiz = store.quiz(code)
    assert (quiz.number, quiz.sentence, quiz.revealed) == (1, "She opened a [MASK].", False)
    assert quiz.guesses == {"ann": "door", "bo": "door", "cy": "<script>alert(1)</script>"}
    assert quiz.answer is None  # BERT's answer comes with the reveal
    answer = [{"token": "door", "id": 2341, "prob": 0.5}, {"token": "##s", "id": 1, "prob": 0.25}]
    with pytest.raises(NotTeacher):
        store.reveal(code, "not-the-token", answer)
    with pytest.raises(ValueError):
        store.reveal(code, token, [{"token": "x" * rooms.MAX_VIEW_BYTES}])  # bounded like a view
    assert not store.quiz(code).revealed
    store.reveal(code, token, answer)
    answer[0]["prob"] = 1.0  # the store kept its own copy
    quiz = store.quiz(code)
    assert quiz.revealed and quiz.answer == [{"token": "door", "id": 2341, "prob": 0.5}, answer[1]]
    with pytest.raises(GuessError, match="revealed"):
        store.guess(code, "dee", "room")
    assert store.ask(code, token, "我去[MASK]场看电影") == 2
    quiz = store.quiz(code)
    assert (quiz.number, quiz.guesses, quiz.revealed, quiz.answer) == (2, {}, False, None)


def test_a_question_keeps_a_class_of_guessers_not_a_flood(store, monkeypatch):
    monkeypatch.setattr(rooms, "MAX_GUESSERS", 3)
    code, token = store.create()
    store.ask(code, token, "She opened a [MASK].")
    for student in ("ann", "bo", "cy"):
        store.guess(code, student, "door")
    with pytest.raises(GuessError, match="full"):
        store.guess(code, "dee", "window")
    assert store.guess(code, "ann", "window") == "window"  # one already counted may still change their answer
    assert len(store.quiz(code).guesses) == 3


def test_guesses_are_normalised_and_bounded():
    assert normalise_guess("  Ｄｏｏｒ  ") == "door"  # full-width letters from a Chinese keyboard
    assert normalise_guess("big\n\t  door") == "big door"
    assert normalise_guess("a\x00b\u200bc") == "abc"
    assert len(normalise_guess("x" * 100_000)) == rooms.MAX_GUESS
    for empty in ("", "   ", "\x00\u200b"):
        with pytest.raises(GuessError):
            normalise_guess(empty)


def test_tally_counts_what_bert_guessed():
    guesses = {"a": "door", "b": "door", "c": "window", "d": "s", "e": "gate"}
    result = tally(guesses, ["door", "window", "##s", "box", "room"])
    assert result.counts == [("door", 2), ("gate", 1), ("s", 1), ("window", 1)]
    assert (result.answered, result.top_word, result.top_word_count, result.in_top) == (5, "door", 2, 4)
    assert tally({}, ["door"]).answered == 0


def test_memory_rooms_expire_an_hour_after_the_teacher_left():
    clock = Clock()
    store = MemoryStore(clock=clock)
    code, token = store.create()
    kept, kept_token = store.create()
    clock.now += rooms.ROOM_TTL - 10
    store.teacher_heartbeat(kept, kept_token)
    store.student_heartbeat(code, "ann")  # students do not keep a room alive
    clock.now += 11
    with pytest.raises(RoomGone):
        store.view(code)
    assert store.view(kept) == (0, {})
    clock.now += rooms.PRESENCE_SECONDS + 1
    assert store.students(kept) == 0


def test_redis_rooms_expire_with_their_keys(redis_url, monkeypatch):
    store = RedisStore(redis_url, prefix="test:expiry:")
    monkeypatch.setattr(rooms, "ROOM_TTL", 1)
    code, token = store.create()
    store.ask(code, token, "[MASK]")
    store.guess(code, "ann", "x")
    store.student_heartbeat(code, "ann")
    time.sleep(1.3)
    with pytest.raises(RoomGone):
        store.version(code)
    assert not store._redis.keys("test:expiry:*")  # no key is left behind


def run_replica(redis_url: str, script: str) -> dict:
    """``script`` in a separate Python process (another app replica), its last line of output as JSON."""
    code = "import json, sys\nfrom app.classroom.store import store_from_env\nstore = store_from_env()\n" + script
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "BERT_LAB_REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_app_processes_share_a_room_through_redis(redis_url, monkeypatch):
    # Replica one: the teacher's session starts a class, shows a page and asks a question.
    teacher = run_replica(
        redis_url,
        "code, token = store.create()\n"
        "store.publish(code, token, {'page': 'fill_mask', 'params': {'text': '我去[MASK]场', 'lang': 'zh'}})\n"
        "store.ask(code, token, 'She opened a [MASK].')\n"
        "print(json.dumps({'code': code, 'token': token}))\n",
    )
    # Replica two (this process): a student's session in the same room sees the view and answers.
    monkeypatch.setenv("BERT_LAB_REDIS_URL", redis_url)
    student_side = rooms.store_from_env()
    assert isinstance(student_side, RedisStore)
    version, view = student_side.view(teacher["code"])
    assert view == {"page": "fill_mask", "params": {"text": "我去[MASK]场", "lang": "zh"}}
    student_side.student_heartbeat(teacher["code"], "ann")
    student_side.guess(teacher["code"], "ann", "Door")
    with pytest.raises(NotTeacher):
        student_side.reveal(teacher["code"], "not-the-token", [])
    # Back on replica one: the teacher sees the student and reveals.
    seen = run_replica(
        redis_url,
        f"code, token = {teacher['code']!r}, {teacher['token']!r}\n"
        "store.reveal(code, token, [{'token': '门', 'id': 7, 'prob': 0.5}])\n"
        "quiz = store.quiz(code)\n"
        "print(json.dumps({'students': store.students(code), 'guesses': quiz.guesses, 'revealed': quiz.revealed}))\n",
    )
    assert seen == {"students": 1, "guesses": {"ann": "door"}, "revealed": True}
    # The student's replica reads the answer the teacher's replica computed: no forward pass of its own.
    assert student_side.quiz(teacher["code"]).answer == [{"token": "门", "id": 7, "prob": 0.5}]
    assert student_side.version(teacher["code"]) > version


def test_a_teachers_app_session_on_redis_is_seen_from_another_process(redis_url, monkeypatch):
    """The app itself (its entry script, through AppTest) publishes to Redis; another process reads the room."""
    from streamlit.testing.v1 import AppTest

    from app.classroom import session

    monkeypatch.setenv("BERT_LAB_REDIS_URL", redis_url)
    session.room_store.clear()  # the process's store is chosen once: choose again, with Redis
    try:
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
        at.session_state["lang"] = "zh"
        at.run()
        at.switch_page("pages/classroom.py")
        at.run()
        at.button(key="classroom_start").click()
        at.run()
        code = at.session_state["class_room"]
        at.session_state["text"] = "我去[MASK]场看电影。"
        at.switch_page("pages/overview.py")
        at.run()
        assert not at.exception
        seen = run_replica(redis_url, f"print(json.dumps(store.view({code!r})))")
        assert seen[1]["page"] == "overview"
        assert (seen[1]["params"]["text"], seen[1]["params"]["lang"]) == ("我去[MASK]场看电影。", "zh")
    finally:
        session.room_store.clear()


def test_redis_stopping_mid_class_pauses_class_mode_and_the_class_resumes_when_it_is_back(
    redis_url, monkeypatch, tmp_path
):
    """Redis stops during a class: the class page and the sidebar say so, every other page works, nothing raises;
    Redis comes back with its rooms and the same sessions go on in the same room."""
    import redis
    from apptest_helpers import open_app_page
    from test_page_classroom import class_started

    from app.classroom import session
    from app.core.i18n import strings_of

    CLASS_TEXT = strings_of("classroom")

    port = free_port()
    server = _start_redis(port, "--dir", str(tmp_path))
    monkeypatch.setenv("BERT_LAB_REDIS_URL", f"redis://127.0.0.1:{port}/0")
    session.room_store.clear()
    try:
        teacher = class_started("en")
        code = teacher.session_state["class_room"]
        student = open_app_page("overview", "en")
        student.query_params["room"] = code
        student.session_state["_class_link_read"] = False
        student.run()
        assert student.session_state["class_room"] == code

        redis.Redis(port=port).shutdown(save=True)  # the rooms go to disk, as a restarted server would have them
        server.wait(timeout=10)
        down = CLASS_TEXT["store_down"]["en"]
        student.switch_page("pages/attention.py")
        student.run()
        assert not student.exception and student.title  # another page works
        assert down in [w.value for w in student.sidebar.warning]
        teacher.run()  # the class page itself
        assert not teacher.exception
        assert down in [w.value for w in teacher.warning]
        student.switch_page("pages/classroom.py")
        student.run()
        assert not student.exception and down in [w.value for w in student.warning]
        assert student.session_state["class_room"] == code  # nobody was sent out of the class

        server = _start_redis(port, "--dir", str(tmp_path))
        student.run()
        teacher.run()
        assert not student.exception and not teacher.exception
        assert down not in [w.value for w in [*student.sidebar.warning, *student.warning]]
        assert teacher.session_state["class_room"] == code and student.session_state["class_room"] == code
        teacher.text_input(key="classroom_quiz_text").set_value("She opened a [MASK].")
        teacher.button(key="classroom_ask_button").click()
        teacher.run()
        assert session.room_store().quiz(code).sentence == "She opened a [MASK]."  # the same room, working
    finally:
        session.room_store.clear()
        server.terminate()
        server.wait(timeout=10)


def test_a_guess_in_traditional_characters_counts_as_the_models_simplified_word():
    """A class in Taiwan types 機 where the model answers 机: the same guess, and it counts as BERT's."""
    assert normalise_guess("飛機") == "飞机" == rooms.bert_word("飞机")
    counted = rooms.tally({"s1": normalise_guess("機"), "s2": normalise_guess("机")}, ["机", "车"])
    assert counted.counts == [("机", 2)] and counted.top_word_count == 2 and counted.in_top == 2
