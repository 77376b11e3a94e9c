"""Class mode through the real entry script (AppTest), in both languages: a teacher starts a class, two students
join (by the link and by the typed code) and follow the teacher's page and settings, and a quiz is asked,
answered (HTML too, as plain text) and revealed with the class's counts beside BERT's top 5."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import APP, charts, figure_of, labels
from streamlit.testing.v1 import AppTest

from app.classroom import session
from app.classroom.charts import MATCH_COLOR, OTHER_COLOR, guess_bars
from app.classroom.store import MAX_GUESS, bert_word
from app.core.i18n import strings_of
from app.core.models import fill_mask

ATTENTION = strings_of("attention")
TEXT = strings_of("classroom")
FILL_MASK = strings_of("fill_mask")


def new_session(lang: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


def class_started(lang: str) -> AppTest:
    """A teacher's session that has started a class."""
    teacher = new_session(lang)
    teacher.switch_page("pages/classroom.py")
    run(teacher)
    teacher.button(key="classroom_start").click()
    return run(teacher)


def shown(at: AppTest) -> list[str]:
    return [e.value for e in [*at.markdown, *at.caption, *at.warning, *at.success, *at.info]]


def on_page(at: AppTest, name: str) -> bool:
    return (
        at.title
        and at.title[0].value
        == {"classroom": TEXT["title"], "fill_mask": FILL_MASK["title"]}[name][at.session_state["lang"]]
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_class_follows_its_teacher_and_answers_a_quiz(lang):
    teacher = class_started(lang)
    code = teacher.session_state["class_room"]
    assert TEXT["room_code"][lang].format(code=code) in [m.value.lstrip("# ") for m in teacher.markdown]
    link = teacher.code[0].value
    assert link.endswith(f"/?room={code}")
    (qr,) = teacher.get("image")  # the QR code, drawn here and inlined: no service, no media file to expire
    assert qr.proto.imgs[0].url.startswith("data:image/svg+xml;base64,")

    # One student opens the link, the other types the code (in lower case, with a space).
    first = new_session(lang, room=code)
    second = new_session(lang)
    second.switch_page("pages/classroom.py")
    run(second)
    second.text_input(key="classroom_code").input(f" {code[:3].lower()} {code[3:]}")
    submit = [b for b in second.button if b.label == TEXT["join_button"][lang]]
    submit[0].click()
    run(second)
    for student in (first, second):
        assert student.session_state["class_room"] == code
        assert on_page(student, "classroom")  # the teacher is on the class page: so are they
        assert student.query_params["room"] == code  # a reload rejoins
    run(teacher)
    assert TEXT["students"][lang].format(n=2) in shown(teacher)

    # The teacher moves to fill-mask with a sentence, layer and head of their own: the students follow.
    teacher.session_state["text"] = "我去[MASK]场看电影。"
    teacher.session_state["layer"] = 2
    teacher.session_state["head"] = 3
    teacher.session_state["fill_mask_top_k"] = 9
    other = "zh" if lang == "en" else "en"
    teacher.session_state["lang"] = other
    teacher.switch_page("pages/fill_mask.py")
    run(teacher)
    second.button(key="class_explore").click()  # this one explores freely meanwhile
    run(second)
    run(first)
    assert on_page(first, "fill_mask")
    assert (first.session_state["text"], first.session_state["layer"], first.session_state["head"]) == (
        "我去[MASK]场看电影。",
        2,
        3,
    )
    assert (first.session_state["fill_mask_top_k"], first.session_state["lang"]) == (9, other)
    assert first.title[0].value == FILL_MASK["title"][other]  # the page speaks the teacher's language now
    assert on_page(second, "classroom") and second.session_state["text"] != "我去[MASK]场看电影。"
    assert TEXT["teacher_moved"][lang] in [c.value for c in second.sidebar.caption]
    second.button(key="class_back").click()
    run(second)
    assert on_page(second, "fill_mask") and second.session_state["text"] == "我去[MASK]场看电影。"
    with pytest.raises(KeyError):
        first.button(key="classroom_ask_button")  # only the teacher's page has the quiz controls

    # The quiz: back on the class page, the teacher asks; the students answer; the teacher reveals.
    teacher.session_state["lang"] = lang
    teacher.switch_page("pages/classroom.py")
    run(teacher)
    question = TEXT["quiz_default"][lang]
    teacher.text_input(key="classroom_quiz_text").input(question)
    teacher.button(key="classroom_ask_button").click()
    run(teacher)
    assert TEXT["answered"][lang].format(n=0, present=2) in shown(teacher), "\n".join(shown(teacher))
    top = fill_mask("embedded", question, 5, False).masks[0].predictions[0].token
    for student, guess in ((first, f"  {top.upper()} "), (second, "<script>alert(1)</script>")):
        run(student)
        assert on_page(student, "classroom")
        student.text_input(key="classroom_guess").input(guess)
        [b for b in student.button if b.label == TEXT["send_button"][lang]][0].click()
        run(student)
    assert TEXT["guess_sent"][lang].split("{guess}")[0] + top.lower() in " ".join(shown(first))
    run(teacher)
    assert TEXT["answered"][lang].format(n=2, present=2) in shown(teacher)
    teacher.button(key="classroom_reveal").click()
    run(teacher)
    run(first)
    for at in (teacher, first):
        line = TEXT["tally"][lang].format(answered=2, top_count=1, top=bert_word(top), in_top=1)
        assert line in shown(at)
        guesses, bert = charts(at)
        # A guess reaches the chart escaped (plotly renders tags), and reads as the student typed it once drawn.
        assert sorted(labels(guesses["data"][0]["y"])) == sorted([top.lower(), "<script>alert(1)</script>"])
        assert list(guesses["data"][0]["x"]) == [1, 1]
        assert labels(bert["data"][0]["y"])[0] == top and len(bert["data"][0]["y"]) == 5
        assert "<script>" not in json.dumps({key: value for key, value in guesses.items() if key != "alt"}, default=str)
        assert not [e for e in [*at.markdown, *at.caption] if e.proto.allow_html]

    # Too late, and the teacher ends the class: the students are told.
    second.text_input(key="classroom_guess")  # the box is gone after the reveal
    teacher.button(key="classroom_end").click()
    run(teacher)
    run(first)
    assert first.session_state.get("class_room") is None
    assert TEXT["notice_ended"][lang] in shown(first)


def test_a_class_follows_the_section_its_teacher_opens():
    teacher = class_started("en")
    student = new_session("en", room=teacher.session_state["class_room"])
    teacher.switch_page("pages/attention.py")
    run(teacher)
    teacher.segmented_control(key="w_attention_section").set_value("bertviz")
    run(teacher)
    run(student)
    assert student.session_state["attention_section"] == "bertviz"
    assert student.title[0].value == ATTENTION["title"]["en"]
    assert len(student.get("iframe")) == 1 and not charts(student)  # bertviz, and no maps


def test_bad_codes_say_so_on_the_page():
    at = new_session("en")
    at.switch_page("pages/classroom.py")
    run(at)
    for raw in ("", "ABC", "ABCDE0", "<b>x</b>", "x" * 5000, "ZZZZZZ"):
        at.text_input(key="classroom_code").set_value(raw)
        [b for b in at.button if b.label == TEXT["join_button"]["en"]][0].click()
        run(at)
        expected = "notice_no_room" if raw == "ZZZZZZ" else "notice_bad_code"
        assert [w.value for w in at.warning] == [TEXT[expected]["en"]], raw
        assert at.session_state.get("class_room") is None


def test_a_stale_link_and_hostile_guesses_get_a_message_not_a_traceback():
    at = new_session("zh", room="QQQQQQ")
    assert TEXT["notice_no_room"]["zh"] in [w.value for w in at.sidebar.warning]
    assert "room" not in at.query_params

    code, token = session.room_store().create()
    session.room_store().ask(code, token, "She opened a [MASK].")
    at = new_session("en", room=code)
    at.switch_page("pages/classroom.py")
    run(at)
    send = [b for b in at.button if b.label == TEXT["send_button"]["en"]][0]
    send.click()  # nothing typed
    run(at)
    assert TEXT["guess_empty"]["en"] in [w.value for w in at.warning]
    # set_value, not input: a browser stops at max_chars, a crafted client need not.
    at.text_input(key="classroom_guess").set_value("w" * 10_000)
    [b for b in at.button if b.label == TEXT["send_button"]["en"]][0].click()
    run(at)
    assert session.room_store().quiz(code).guesses == {at.session_state["class_student"]: "w" * MAX_GUESS}


def test_a_student_who_floods_guesses_is_limited_and_told_so():
    code, token = session.room_store().create()
    session.room_store().ask(code, token, "She opened a [MASK].")
    at = new_session("en", room=code)
    at.switch_page("pages/classroom.py")
    run(at)
    for n in range(session.MAX_GUESSES_PER_QUESTION + 3):
        at.text_input(key="classroom_guess").set_value(f"word{n}")
        [b for b in at.button if b.label == TEXT["send_button"]["en"]][0].click()
        run(at)
    last_counted = f"word{session.MAX_GUESSES_PER_QUESTION - 1}"
    assert session.room_store().quiz(code).guesses == {at.session_state["class_student"]: last_counted}
    assert TEXT["guess_too_many"]["en"] in [w.value for w in at.warning]
    session.room_store().ask(code, token, "我去[MASK]场看电影")  # a new question, a new budget
    run(at)
    at.text_input(key="classroom_guess").set_value("机")
    [b for b in at.button if b.label == TEXT["send_button"]["en"]][0].click()
    run(at)
    assert session.room_store().quiz(code).guesses == {at.session_state["class_student"]: "机"}


def test_the_guess_chart_escapes_marks_and_folds_the_long_tail():
    counts = [("door", 3), ("<b>gate</b>", 2)] + [(f"w{i}", 1) for i in range(12)]
    figure = figure_of(
        guess_bars(counts, {"door"}, title="t", axis_title="students", others_label="{n} others", max_bars=4)
    )
    [bars] = figure["data"]
    assert bars["y"] == ["door", "&lt;b&gt;gate&lt;/b&gt;", "w0", "w1", "10 others"]  # escaped: plotly renders tags
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"  # the commonest guess at the top
    assert list(bars["x"]) == [3, 2, 1, 1, 10]
    assert bars["text"] == ["3 ✓", "2", "1", "1", "10"]  # marked in words too
    colours = bars["marker"]["color"]
    assert colours[0] == MATCH_COLOR and set(colours[1:]) == {OTHER_COLOR}
    xaxis = figure["layout"]["xaxis"]
    assert xaxis["title"]["text"] == "students" and xaxis["dtick"] == 1  # whole students


def test_the_teachers_private_link_takes_the_class_back_and_leaves_the_address_bar():
    teacher = class_started("en")
    code, token = teacher.session_state["class_room"], teacher.session_state["class_token"]
    private = teacher.code[1].value  # inside the "teacher's link" expander
    assert private.endswith(f"/?room={code}&teacher={token}")

    reloaded = new_session("en", room=code, teacher=token)  # the teacher's tab after a reload
    assert reloaded.session_state["class_token"] == token
    assert "teacher" not in reloaded.query_params and "room" not in reloaded.query_params
    run(reloaded)
    assert any(code in m for m in shown(reloaded))  # the sidebar's class panel: this session leads the class

    forged = new_session("en", room=code, teacher="0" * len(token))
    assert "class_token" not in forged.session_state and "class_room" not in forged.session_state
    assert TEXT["notice_not_teacher"]["en"] in [w.value for w in forged.warning]


def cookie_scripts(at: AppTest) -> list[str]:
    """The scripts this run put in the page (``session.remember_place``: the class cookies)."""
    return [e.proto.body for e in at.get("html") if "document.cookie" in e.proto.body]


def test_a_session_that_reconnects_takes_its_place_in_the_class_back_from_the_browsers_cookies(monkeypatch):
    """A tab whose replica died reconnects to another as a new session, with only its address and its cookies: the
    teacher (whose address holds no room) gets the same room back, a student (whose address does) the same id, and
    with it the answer they sent; each is told that what was not sent did not survive."""
    teacher = class_started("en")
    code, token = teacher.session_state["class_room"], teacher.session_state["class_token"]
    (written,) = cookie_scripts(teacher)  # written in the run that started the class, once
    assert f"bert_lab_teacher={code}:{token}; path=/; SameSite=Strict" in written
    assert cookie_scripts(run(teacher)) == []
    student = new_session("en", room=code)
    me = student.session_state["class_student"]
    assert f"bert_lab_student={code}:{me}" in cookie_scripts(student)[0]
    teacher.text_input(key="classroom_quiz_text").input(TEXT["quiz_default"]["en"])
    teacher.button(key="classroom_ask_button").click()
    run(teacher)
    run(student).text_input(key="classroom_guess").input("door")
    [b for b in student.button if b.label == TEXT["send_button"]["en"]][0].click()
    run(student)

    cookies = {"teacher": f"{code}:{token}", "student": f"{code}:{me}"}
    monkeypatch.setattr(session, "browser_cookie", cookies.get)
    back = new_session("en")  # the teacher's tab on the other replica: no room in its address
    assert (back.session_state["class_room"], back.session_state["class_token"]) == (code, token)
    assert TEXT["notice_resumed"]["en"] in [w.value for w in back.sidebar.warning]
    returned = new_session("en", room=code)
    assert returned.session_state["class_student"] == me
    returned.switch_page("pages/classroom.py")
    run(returned)
    assert TEXT["guess_sent"]["en"].format(guess="door") in shown(returned)  # read from the room, not the session
    back.switch_page("pages/classroom.py")
    run(back)
    assert TEXT["answered"]["en"].format(n=1, present=1) in shown(back)  # one student, not two

    # A class that ended while the tab was away: nothing to take back, no message, and the cookie is cleared.
    session.room_store().close(code, token)
    gone = new_session("en")
    assert "class_room" not in gone.session_state and not gone.sidebar.warning
    assert "bert_lab_teacher=; max-age=0" in cookie_scripts(gone)[0]
    late = new_session("en", room=code)  # a student's tab, its room ended meanwhile: told so, not "back in class"
    assert [w.value for w in late.sidebar.warning] == [TEXT["notice_no_room"]["en"]]
    monkeypatch.setattr(session, "browser_cookie", {"teacher": "not a cookie"}.get)
    assert "class_room" not in new_session("en").session_state
    # A student id this app did not make (a hand-edited cookie) is not taken: the link joins as a new student.
    live = class_started("en").session_state["class_room"]
    monkeypatch.setattr(session, "browser_cookie", {"student": f"{live}:</script><b>x"}.get)
    joined = new_session("en", room=live)
    assert joined.session_state["class_student"] != "</script><b>x" and len(joined.session_state["class_student"]) == 16


def test_a_new_question_calls_an_exploring_student_back_and_bert_answers_once_for_the_room(monkeypatch):
    teacher = class_started("en")
    student = new_session("en", room=teacher.session_state["class_room"])
    student.button(key="class_explore").click()
    run(student)
    student.switch_page("pages/fill_mask.py")
    run(student)
    teacher.session_state["text"] = "The teacher moved on to [MASK]."  # a change that is not a question
    run(teacher)
    run(student)
    assert on_page(student, "fill_mask") and not student.session_state["class_follow"]
    assert TEXT["teacher_moved"]["en"] in [c.value for c in student.sidebar.caption]

    # A question is for the whole class: the exploring student is brought to it, and told why.
    question = TEXT["quiz_default"]["en"]
    teacher.text_input(key="classroom_quiz_text").input(question)
    teacher.button(key="classroom_ask_button").click()
    run(teacher)
    run(student)
    assert on_page(student, "classroom") and student.session_state["class_follow"]
    assert student.warning[0].value == TEXT["notice_quiz"]["en"]  # at the top of the page
    student.text_input(key="classroom_guess").input("door")
    [b for b in student.button if b.label == TEXT["send_button"]["en"]][0].click()
    run(student)

    # Leaving again with this question answered: the reveal of the same question does not call them back.
    student.button(key="class_explore").click()
    run(student)
    student.switch_page("pages/fill_mask.py")
    run(student)
    forward_passes = []

    def counted_fill_mask(spec, text, *args):
        forward_passes.append(text)
        return fill_mask(spec, text, *args)

    monkeypatch.setattr("app.core.models.fill_mask", counted_fill_mask)
    teacher.button(key="classroom_reveal").click()
    run(teacher)
    assert forward_passes == [question]  # the teacher's session computes BERT's top 5 for the room
    run(student)
    assert on_page(student, "fill_mask") and not student.session_state["class_follow"]
    forward_passes.clear()
    student.button(key="class_back").click()
    run(student)
    assert on_page(student, "classroom")
    guesses, bert = charts(student)
    expected = fill_mask("embedded", question, 5, False).masks[0].predictions
    assert labels(bert["data"][0]["y"]) == [p.token for p in expected]
    assert list(bert["data"][0]["x"]) == pytest.approx([100 * p.prob for p in expected], abs=0.05)  # one decimal
    assert guesses["data"][0]["y"] == ["door"]
    assert question not in forward_passes  # the student's page read the room's answer, not the model
