"""Guided lessons: every lesson file is valid (its pages, settings, values and highlights exist); the card renders
through the real entry script (AppTest) in both languages; Next and Back move the step, the page and the link; the
reveal shows the model's live answer; a bad link says so without a traceback; in class mode the teacher's step is
the class's and its question becomes the class quiz."""

from __future__ import annotations

import dataclasses

import pytest
from apptest_helpers import APP
from streamlit.testing.v1 import AppTest

from app.classroom.session import room_store
from app.core import models
from app.core.i18n import STRINGS, strings_of
from app.core.navigation import PAGE_FILES
from app.core.state import SETTINGS
from app.lessons import data
from app.lessons.data import LESSONS_DIR, check_lesson, lessons, page_anchors, read_lesson
from app.lessons.reveals import REVEALS
from model import inference
from model.checkpoint import EMBEDDED_DIR, read_config
from model.checkpoint import load as load_model

TEXT = strings_of("lessons")

BERT45, HEADS = "bert_in_45_minutes", "inside_the_heads_and_layers"


def session(lang: str, page: str | None = None, **query) -> AppTest:
    """A fresh session, opened by a link with ``query`` (on ``page``, else on the overview)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    for key, value in query.items():
        at.query_params[key] = str(value)
    if page:
        at.switch_page(f"pages/{page}.py")
    return run(at)


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


def find_block(at: AppTest, key: str):
    def walk(node):
        for child in getattr(node, "children", {}).values():
            if getattr(child, "key", None) == key:
                return child
            found = walk(child)
            if found is not None:
                return found
        return None

    return walk(at.main)


def card_text(at: AppTest) -> list[str]:
    card = find_block(at, "lessons_card")
    assert card is not None, "no lesson card"
    return [e.value for kind in ("markdown", "success", "info", "warning", "caption") for e in card.get(kind)]


def title(at: AppTest) -> str:
    return at.title[0].value


def page_title(page: str, lang: str) -> str:
    return STRINGS[f"{page}.title"][lang]


# --- the lesson files -----------------------------------------------------------------------------------------------


def test_both_lessons_exist_with_steps_on_the_pages_they_teach():
    found = lessons()
    assert {BERT45, HEADS} <= found.keys()
    assert [s.page for s in found[BERT45].steps] == [
        "masking",
        "nsp",
        "embeddings",
        "attention",
        "fill_mask",
        "gpt_vs_bert",
        "finetune",
    ]
    assert {"attention", "heads", "layers", "pretrain_live"} <= {s.page for s in found[HEADS].steps}


@pytest.mark.parametrize("path", sorted(LESSONS_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_every_lesson_file_is_valid(path):
    lesson = read_lesson(path)
    assert check_lesson(lesson, SETTINGS, REVEALS) == []
    config = read_config(EMBEDDED_DIR)  # the layer and head a step names must exist in the shipped model
    for step in lesson.steps:
        assert step.settings.get("layer", 0) < config.num_hidden_layers
        assert step.settings.get("head", 0) < config.num_attention_heads


def test_the_check_finds_each_kind_of_mistake():
    good = lessons()[BERT45]
    step = good.steps[0]

    def broken(**changes) -> list[str]:
        return check_lesson(dataclasses.replace(good, steps=(dataclasses.replace(step, **changes),)), SETTINGS, REVEALS)

    assert broken() == []
    assert broken(page="nowhere") == ["step 1: no page 'nowhere'"]
    assert broken(settings={"fill_mask_top_k": 5}) == ["step 1: 'fill_mask_top_k' is not a setting of page 'masking'"]
    assert broken(settings={"masking_rate": 0}) == ["step 1: 'masking_rate' cannot be 0"]
    assert broken(settings={"masking_split": [90, 80]}) == ["step 1: 'masking_split' cannot be [90, 80]"]
    assert broken(settings={"masking_nothing": 1}) == ["step 1: 'masking_nothing' is not a shared setting"]
    assert broken(highlight="fill_mask_predict") == ["step 1: page 'masking' draws no container 'fill_mask_predict'"]
    assert broken(question={"en": "Why?"}) == ["step 1: question lacks a language"]
    # The layers page draws its geometry chart with the key "layers_geometry"; its container has another key.
    assert broken(page="layers", settings={}, highlight="layers_geometry") == [
        "step 1: page 'layers' draws no container 'layers_geometry'"
    ]
    assert broken(reveal={"kind": "typed_in"}) == ["step 1: no reveal 'typed_in'"]
    every = {"en": "a", "zh": "a", "zh-Hant": "a"}
    assert broken(answer={"kind": "choice", "options": [{"value": "A", "label": every}]}) == [
        "step 1: a choice needs two or more options in every language",
        "step 1: option values must be distinct, lower case and not empty",
    ]


def test_the_check_finds_a_container_key_that_another_element_uses_too(monkeypatch):
    # As it was once: the layers page's geometry container and its chart both keyed "layers_geometry", which
    # Streamlit refuses at run time.
    monkeypatch.setattr(data, "page_anchors", lambda page: {"layers_geometry"})
    step = dataclasses.replace(lessons()[HEADS].steps[4], highlight="layers_geometry")
    lesson = dataclasses.replace(lessons()[HEADS], steps=(step,))
    assert check_lesson(lesson, SETTINGS, REVEALS) == [
        "step 1: page 'layers' gives the key 'layers_geometry' to more than its container"
    ]


def test_anchors_are_read_from_the_pages_code():
    assert {"fill_mask_predict", "fill_mask_score"} <= page_anchors("fill_mask")
    assert "masking_sequences" in page_anchors("masking") and "masking_sequences" not in page_anchors("nsp")
    assert set(PAGE_FILES) >= {step.page for lesson in lessons().values() for step in lesson.steps}


# --- the card -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_overview_offers_the_lessons_and_start_opens_step_one(lang):
    at = session(lang)
    assert find_block(at, "lessons_picker") is not None
    assert find_block(at, "lessons_card") is None
    at.button(key=f"lessons_start_{BERT45}").click()
    run(at)
    assert title(at) == page_title("masking", lang)
    lesson = lessons()[BERT45]
    shown = card_text(at)
    assert shown[0].endswith(TEXT["step_of"][lang].format(k=1, n=len(lesson.steps)))
    assert lesson.steps[0].instruction[lang] in shown
    assert at.query_params["lessons_name"] == BERT45
    styles = [e.proto.body for e in at.get("html") if ".st-key-masking_sequences" in e.proto.body]
    assert styles, "the step's part of the page is not outlined"
    assert find_block(at, "masking_sequences") is not None  # and the page really draws that part


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_next_and_back_move_the_step_the_page_and_the_link(lang):
    at = session(lang, "masking", lessons_name=BERT45)
    lesson = lessons()[BERT45]
    at.button(key="lessons_next").click()
    run(at)
    assert title(at) == page_title("nsp", lang)
    assert at.query_params["lessons_step"] == "2" and at.query_params["nsp_mode"] == "type"
    assert card_text(at)[0].endswith(TEXT["step_of"][lang].format(k=2, n=len(lesson.steps)))
    assert find_block(at, "nsp_prediction") is not None
    at.button(key="lessons_next").click()
    run(at)
    assert title(at) == page_title("embeddings", lang) and at.query_params["lessons_step"] == "3"
    at.button(key="lessons_back").click()
    run(at)
    at.button(key="lessons_back").click()
    run(at)
    assert title(at) == page_title("masking", lang)
    assert "lessons_step" not in at.query_params  # step 1 is the default, left out of the link
    assert at.button(key="lessons_back").disabled
    at.button(key="lessons_leave").click()
    run(at)
    assert find_block(at, "lessons_card") is None and "lessons_name" not in at.query_params


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_shared_link_opens_at_its_step_on_its_page_with_its_settings(lang):
    at = session(lang, None, lessons_name=BERT45, lessons_step=5)  # the overview's address, step 5 is fill-mask
    assert title(at) == page_title("fill_mask", lang)
    assert "[MASK]" in at.session_state["text"]
    assert find_block(at, "fill_mask_predict") is not None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reveal_shows_the_models_live_answer(lang):
    at = session(lang, "fill_mask", lessons_name=BERT45, lessons_step=5)
    at.button(key="lessons_reveal").click()
    run(at)
    assert TEXT["answer_first"][lang] in card_text(at)  # no reveal before an answer
    assert not find_block(at, "lessons_card").get("info") and not find_block(at, "lessons_card").get("success")
    # Typed and revealed in one go, as a click on Reveal right after typing sends both.
    at.text_input(key=f"lessons_answer_{BERT45}_5").input("zzzz")
    at.button(key="lessons_reveal").click()
    run(at)
    (mask,) = inference.fill_mask(load_model(EMBEDDED_DIR), at.session_state["text"], top_k=5).masks
    top = mask.predictions[0].token.removeprefix("##")
    revealed = " ".join(card_text(at))
    assert TEXT["yours"][lang].format(answer="zzzz") in revealed  # a wrong answer is told so
    assert top in revealed and f"{mask.predictions[0].prob:.0%}" in revealed
    # The model's top word counts as right.
    at.text_input(key=f"lessons_answer_{BERT45}_5").input(top)
    run(at)
    assert any(s.value.startswith(TEXT["right"][lang]) for s in find_block(at, "lessons_card").get("success"))


@pytest.mark.parametrize(("lang", "answer"), [("en", "bert"), ("zh", "tie")])
def test_the_albert_step_reveals_what_three_seeds_resolved(lang, answer):
    """The family page's step: the answer is the three-seed interval's, so a language whose interval holds 0 says so."""
    from model.training.live import MEASURED_VARIANTS

    step = len(lessons()[HEADS].steps)
    at = session(lang, "family", lessons_name=HEADS, lessons_step=step)
    assert at.session_state["family_experiment"] == "albert"
    at.radio(key=f"lessons_answer_{HEADS}_{step}").set_value(answer)
    run(at)
    at.button(key="lessons_reveal").click()
    run(at)
    mean, low, high = MEASURED_VARIANTS["albert"][lang]["albert"]["heldout_top1"]
    assert f"[{low:+.1f}, {high:+.1f}]" in " ".join(card_text(at))
    assert find_block(at, "lessons_card").get("success")  # the option the interval picks is right


def test_a_choice_reveal_follows_the_page_not_the_file():
    at = session("en", "masking", lessons_name=BERT45)
    at.session_state["masking_split"] = (50, 75)  # the reader moved the split slider
    at.radio(key=f"lessons_answer_{BERT45}_1").set_value("80")
    run(at)
    at.button(key="lessons_reveal").click()
    run(at)
    revealed = " ".join(card_text(at))
    assert "**50%** become [MASK], 25% a random token and 25% stay" in revealed
    assert not find_block(at, "lessons_card").get("success")  # 80 is no longer right


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_to_no_lesson_or_no_step_explains_and_the_page_works(lang):
    at = session(lang, "attention", lessons_name="no_such_lesson")
    assert title(at) == page_title("attention", lang)
    assert TEXT["unknown"][lang].format(name="no\\_such\\_lesson") in card_text(at)
    at = session(lang, "attention", lessons_name=HEADS, lessons_step=40)
    lesson = lessons()[HEADS]
    expected = TEXT["no_step"][lang].format(step=40, title=lesson.title[lang], n=len(lesson.steps))
    assert expected in card_text(at)
    assert at.get("plotly_chart")  # the attention page drew its maps under the message
    at.button(key="lessons_leave_problem").click()
    run(at)
    assert find_block(at, "lessons_card") is None
    for step in (0, -3, 500):  # every whole number reaches the card: none opens step 1 as if it were right
        at = session(lang, "attention", lessons_name=HEADS, lessons_step=step)
        expected = TEXT["no_step"][lang].format(step=step, title=lesson.title[lang], n=len(lesson.steps))
        assert expected in card_text(at)
    at.button(key="lessons_first").click()
    run(at)
    assert at.session_state["lessons_step"] == 1 and title(at) == page_title(lesson.steps[0].page, lang)


@pytest.mark.parametrize("text", ["", "   ", "[MASK] " * 600, "no blank here at all"])
def test_a_reveal_on_a_sentence_the_reader_broke_explains_instead_of_failing(text):
    at = session("en", "fill_mask", lessons_name=BERT45, lessons_step=5)
    at.session_state["text"] = text
    at.text_input(key=f"lessons_answer_{BERT45}_5").input("pool")
    run(at)
    at.button(key="lessons_reveal").click()
    run(at)  # no exception
    card = find_block(at, "lessons_card")
    assert card.get("warning") or card.get("info")  # the reason, or what the reveal found instead


# --- class mode -----------------------------------------------------------------------------------------------------


def test_the_class_follows_the_teachers_step_and_answers_its_question_as_the_quiz():
    teacher = session("en", "classroom")
    teacher.button(key="classroom_start").click()
    run(teacher)
    code = teacher.session_state["class_room"]
    student = session("en", None, room=code)
    teacher.switch_page("pages/lessons.py")
    run(teacher)
    teacher.button(key=f"lessons_start_{BERT45}").click()
    run(teacher)
    teacher.button(key="lessons_next").click()  # step 2: next-sentence prediction
    run(teacher)
    run(student)
    assert title(student) == page_title("nsp", "en")
    assert student.session_state["lessons_step"] == 2
    assert not [b for b in student.button if b.key == "lessons_next"]  # a following student does not step alone

    question = lessons()[BERT45].steps[1].question["en"]
    teacher.button(key="lessons_ask").click()
    run(teacher)
    run(student)
    student.radio(key=f"lessons_answer_{BERT45}_2").set_value("no")
    run(student)
    student.button(key="lessons_send").click()
    run(student)
    assert TEXT["sent"]["en"].format(answer="No, B does not follow A") in card_text(student)
    run(teacher)
    assert TEXT["class_answered"]["en"].format(n=1) in card_text(teacher)
    teacher.button(key="lessons_reveal").click()
    run(teacher)
    run(student)
    for at in (teacher, student):
        shown = "\n".join(card_text(at))
        assert TEXT["class_header"]["en"].format(n=1) in shown
        assert "No, B does not follow A: 1" in shown
        assert TEXT["class_answered"]["en"].format(n=1) not in shown  # the waiting count is gone with the reveal
    stored = room_store().quiz(code)  # the class page reads the same quiz from the store
    assert stored.sentence == question and stored.revealed and list(stored.guesses.values()) == ["no"]
    assert [p["token"] for p in stored.answer] in (["yes", "no"], ["no", "yes"])  # with BERT's probabilities

    # A reveal with no probabilities (the embedding sum's yes/no) stores none; the class page still shows the quiz.
    teacher.button(key="lessons_next").click()
    run(teacher)
    teacher.button(key="lessons_ask").click()
    run(teacher)
    teacher.button(key="lessons_reveal").click()
    run(teacher)
    stored = room_store().quiz(code)
    assert stored.sentence == lessons()[BERT45].steps[2].question["en"] and stored.revealed and stored.answer == []
    assert TEXT["class_none"]["en"] in card_text(teacher)
    student.switch_page("pages/classroom.py")
    run(student)
    assert any(stored.sentence in m.value for m in student.markdown)


@pytest.mark.parametrize("lang", ["en", "zh", "zh-Hant"])
def test_the_logit_lens_step_reveals_where_the_answer_forms(lang):
    """Inside the heads and layers, step 6: the fill-mask page's by-layer chart outlined, and the reveal names the
    layer from which the final answer leads, as the logit lens measures it on the step's sentence."""
    at = session(lang, "fill_mask", lessons_name=HEADS, lessons_step=6)
    step = lessons()[HEADS].steps[5]
    assert step.highlight == "fill_mask_by_layer" and at.session_state["text"] == step.settings_in(lang)["text"]
    lens = models.logit_lens("embedded", at.session_state["text"])  # as the app reads it (Traditional folded)
    at.radio(key=f"lessons_answer_{HEADS}_6").set_value("late")
    run(at)
    at.button(key="lessons_reveal").click()
    run(at)
    revealed = " ".join(card_text(at))
    assert f" {lens.first_top} " in revealed and lens.answer.token in revealed
