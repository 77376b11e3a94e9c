"""A lesson taught to a class in Chromium (issue #42): a teacher and two students, each in a browser of their own.

The teacher starts a class on the class-mode page, the students open its link, and the teacher starts a lesson from
the overview. At every step the teacher asks the class the step's question; each student, who has followed to the
step's page, answers (the first choice, or a word typed) and sends it; the teacher, once both answers are in,
reveals: the model's answer with the class's beside it, on the teacher's card and on each student's. Then Next.

Reported per step: how long each student took to show the teacher's new step after the teacher's Next (their
sidebar polls the room every second), and the time from the teacher's Reveal to the class's answers on the
teacher's card.

    .venv/bin/python bench/lesson_class.py [--lang en] [--lessons bert_in_45_minutes,...] [--shots DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from browser_latency import CHROMIUM, READY
from classroom_load import ROOT, free_port, start_server

sys.path.insert(0, str(ROOT))
from app.core.i18n import strings_of  # noqa: E402
from app.lessons.data import lessons  # noqa: E402 - after the path is set

TEXT = strings_of("lessons")

CARD = ".st-key-lessons_card"
SHOWS = "([selector, text]) => (document.querySelector(selector)?.innerText || '').includes(text)"


def card_text(tab) -> str:
    return tab.locator(CARD).first.inner_text() if tab.locator(CARD).count() else ""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    parser.add_argument("--lessons", default=",".join(lessons()))
    parser.add_argument("--shots", type=Path, default=None)
    args = parser.parse_args()
    lang = args.lang
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port)
    follows, reveals = [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            teacher = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
            teacher.set_default_timeout(120_000)
            teacher.goto(f"{url}/classroom?lang={lang}")
            teacher.wait_for_selector(READY)
            teacher.get_by_role("button", name="Start a class" if lang == "en" else "开始上课").click()
            link = teacher.get_by_test_id("stCode").first.inner_text(timeout=60_000).strip()
            students = []
            for _ in range(2):
                student = browser.new_context(viewport={"width": 800, "height": 1400}).new_page()
                student.set_default_timeout(120_000)
                student.goto(link)
                student.wait_for_selector(READY)
                students.append(student)
            for name in args.lessons.split(","):
                lesson = lessons()[name]
                n = len(lesson.steps)
                if teacher.locator(".st-key-lessons_leave button").count():  # the lesson before this one
                    teacher.locator(".st-key-lessons_leave button").first.click()
                    teacher.wait_for_selector(READY)
                # The sidebar's link, not a new address: a page loaded afresh would be a new session, not the teacher.
                teacher.locator('[data-testid="stSidebarNav"] a').first.click()
                teacher.wait_for_selector(f".st-key-lessons_start_{name}")
                teacher.wait_for_selector(READY)
                for k in range(1, n + 1):
                    teacher.wait_for_timeout(500)
                    button = f".st-key-lessons_start_{name} button" if k == 1 else ".st-key-lessons_next button"
                    teacher.locator(button).first.click()
                    step_text = TEXT["step_of"][lang].format(k=k, n=n)
                    moved = time.perf_counter()
                    teacher.wait_for_function(SHOWS, arg=[CARD, step_text])
                    teacher.wait_for_selector(READY)
                    for i, student in enumerate(students):
                        student.wait_for_function(SHOWS, arg=[CARD, step_text])
                        follows.append((name, k, i, time.perf_counter() - moved))
                    teacher.locator(".st-key-lessons_ask button").first.click()
                    teacher.wait_for_selector(READY)
                    for i, student in enumerate(students):
                        student.locator(".st-key-lessons_send button").first.wait_for()
                        options = student.locator(f"{CARD} [role='radiogroup'] label")
                        if options.count():
                            options.nth(i % options.count()).click()
                        else:
                            student.locator(f"{CARD} input[type='text']").first.fill("pool" if lang == "en" else "机")
                            student.keyboard.press("Enter")
                        student.wait_for_selector(READY)
                        student.locator(".st-key-lessons_send button").first.click()
                        student.wait_for_selector(READY)
                    answered = TEXT["class_answered"][lang].format(n=2)
                    teacher.wait_for_function(SHOWS, arg=[CARD, answered], timeout=30_000)
                    start = time.perf_counter()
                    teacher.locator(".st-key-lessons_reveal button").first.click()
                    header = TEXT["class_header"][lang].split("{")[0].replace("*", "").strip()  # as drawn
                    teacher.wait_for_function(SHOWS, arg=[CARD, header])
                    reveals.append((name, k, time.perf_counter() - start))
                    for student in students:
                        student.wait_for_function(SHOWS, arg=[CARD, header])
                    for who, tab in (("teacher", teacher), *((f"student{i + 1}", s) for i, s in enumerate(students))):
                        assert tab.locator('[data-testid="stException"]').count() == 0, (who, name, k)
                        if args.shots and k in (1, n):
                            args.shots.mkdir(parents=True, exist_ok=True)
                            tab.screenshot(path=str(args.shots / f"class_{name}_{k}_{who}_{lang}.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    for name, k, i, seconds in follows:
        print(f"{name:30} step {k}: student {i + 1} showed the step {seconds:.2f} s after the teacher's Next")
    for name, k, seconds in reveals:
        print(f"{name:30} step {k}: the class's answers on the teacher's card {seconds:.2f} s after Reveal")
    f = [s for *_, s in follows]
    r = [s for *_, s in reveals]
    print(
        f"\nstudents followed: median {statistics.median(f):.2f} s, max {max(f):.2f} s ({len(f)} follows); "
        f"reveal: median {statistics.median(r):.2f} s, max {max(r):.2f} s ({len(r)} steps)"
    )


if __name__ == "__main__":
    main()
