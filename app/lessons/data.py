"""Lessons are data: one JSON file per lesson in this folder for its steps, and its words in the locale files,
``app/locales/<language>/lesson_<name>.json``. Adding a lesson is adding those files; ``check_lesson`` says what is
wrong with one (the tests run it over every file).

In the lesson's file, ``"@"`` stands for words: the locale files hold them under a key made of the place's path,
without the containers' names (``step2.instruction``, ``step2.settings.text``, ``step1.option_80`` for an option's
label), and reading the lesson puts ``{language: string}`` there. A file holds ``title`` and ``summary`` ("@") and
``steps``, each step:

* ``page``: the page the step is on (a name from ``app.core.navigation.PAGE_FILES``);
* ``settings``: values the step gives that page's settings (``text``, ``layer``, ``head`` or the page's own
  ``<page>_...``); a value may be "@" when it depends on the language (a sentence);
* ``highlight``: the key of the page's ``st.container`` to outline;
* ``instruction`` and ``question``: "@";
* ``answer``: {"kind": "choice", "options": [{"value", "label": "@"}, ...]} or {"kind": "text"};
* ``reveal``: {"kind": one of ``app.lessons.reveals.REVEALS``, ...its parameters}: computed live, never typed here.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.i18n import LANGUAGES, STRINGS
from app.core.navigation import PAGE_FILES
from app.core.settings import url_value

LESSONS_DIR = Path(__file__).resolve().parent
APP_DIR = LESSONS_DIR.parent
CORE_STEP_SETTINGS = ("text", "layer", "head")  # core settings a step may set: the sidebar's sentence, layer, head
WORDS = "@"  # in a lesson's file: the words for this place are in the locale files
_CONTAINERS = ("steps", "answer", "options", "label")  # path parts a locale key leaves out
_CONTAINER_KEY = re.compile(r"""st\.container\([^)]*\bkey\s*=\s*["']([A-Za-z0-9_]+)["']""")


@dataclass(frozen=True)
class Step:
    page: str
    settings: dict[str, Any]
    highlight: str
    instruction: dict[str, str]
    question: dict[str, str]
    answer: dict[str, Any]
    reveal: dict[str, Any]

    def settings_in(self, lang: str) -> dict[str, Any]:
        """The step's settings with the language-dependent ones taken in ``lang``."""
        return {name: value[lang] if isinstance(value, dict) else value for name, value in self.settings.items()}

    def options(self, lang: str) -> dict[str, str]:
        """A choice question's options: value → label in ``lang`` (empty for a typed answer)."""
        return {str(o["value"]): o["label"][lang] for o in self.answer.get("options", ())}


@dataclass(frozen=True)
class Lesson:
    name: str  # the file's stem: what a link's ``lessons_name`` says
    title: dict[str, str]
    summary: dict[str, str]
    steps: tuple[Step, ...]


def read_lesson(path: Path) -> Lesson:
    raw = _with_words(json.loads(path.read_text(encoding="utf-8")), f"lesson_{path.stem}", [])
    return Lesson(
        name=path.stem,
        title=raw["title"],
        summary=raw["summary"],
        steps=tuple(Step(**step) for step in raw["steps"]),
    )


def _with_words(node: Any, prefix: str, path: list[str]) -> Any:
    """``node`` with each "@" replaced by its strings, ``{language: string}`` ("" where a language lacks one)."""
    if node == WORDS:
        entry = STRINGS.get(".".join([prefix, *(part for part in path if part not in _CONTAINERS)]), {})
        return {lang: entry.get(lang, "") for lang in LANGUAGES}
    if isinstance(node, dict):
        return {key: _with_words(value, prefix, [*path, key]) for key, value in node.items()}
    if isinstance(node, list):
        if path and path[-1] == "steps":
            return [_with_words(step, prefix, [*path, f"step{n}"]) for n, step in enumerate(node, start=1)]
        return [
            _with_words(item, prefix, [*path, f"option_{item['value']}"] if path[-1:] == ["options"] else path)
            for item in node
        ]
    return node


@functools.cache
def lessons() -> dict[str, Lesson]:
    """Every lesson file of this folder, by name, in the files' order (read once per process)."""
    return {path.stem: read_lesson(path) for path in sorted(LESSONS_DIR.glob("*.json"))}


def page_anchors(page: str) -> set[str]:
    """The keys of the containers a page's concept folder draws: what a step may highlight."""
    folder = APP_DIR / page
    return {key for path in folder.glob("*.py") for key in _CONTAINER_KEY.findall(path.read_text(encoding="utf-8"))}


def _key_uses(page: str, key: str) -> int:
    """How many times the page's concept folder writes ``key=<key>`` (any element's key, not only a container's)."""
    pattern = re.compile(rf"""\bkey\s*=\s*["']{re.escape(key)}["']""")
    return sum(len(pattern.findall(path.read_text(encoding="utf-8"))) for path in (APP_DIR / page).glob("*.py"))


def _both(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(value.get(lang), str) and value[lang].strip() for lang in LANGUAGES
    )


def check_lesson(lesson: Lesson, settings: dict, reveals: dict) -> list[str]:
    """What is wrong with ``lesson`` (empty when nothing is): pages that do not exist, settings the page does not have
    or values they cannot take, highlights the page does not draw, strings missing a language, unknown reveals."""
    problems = []
    if not (_both(lesson.title) and _both(lesson.summary)):
        problems.append("title or summary lacks a language")
    if not lesson.steps:
        problems.append("no steps")
    for number, step in enumerate(lesson.steps, start=1):
        where = f"step {number}"
        if step.page not in PAGE_FILES:
            problems.append(f"{where}: no page {step.page!r}")
            continue
        for name, value in step.settings.items():
            if name not in CORE_STEP_SETTINGS and not name.startswith(f"{step.page}_"):
                problems.append(f"{where}: {name!r} is not a setting of page {step.page!r}")
                continue
            values = [value[lang] for lang in LANGUAGES] if isinstance(value, dict) else [value]
            if isinstance(value, dict) and not _both(value):
                problems.append(f"{where}: {name!r} lacks a language")
            for one in values:
                if name == "text":
                    if not isinstance(one, str) or not one.strip():
                        problems.append(f"{where}: empty sentence")
                    continue
                setting = settings.get(name)
                if setting is None or not setting.shared:
                    problems.append(f"{where}: {name!r} is not a shared setting")
                    continue
                try:
                    parsed = setting.parse(url_value(one))
                except ValueError:
                    problems.append(f"{where}: {name!r} cannot be {one!r}")
                    continue
                if parsed != (tuple(one) if isinstance(one, list) and setting.kind == "pair" else one):
                    problems.append(f"{where}: {name!r} would read {one!r} as {parsed!r}")
        if step.highlight not in page_anchors(step.page):
            problems.append(f"{where}: page {step.page!r} draws no container {step.highlight!r}")
        elif _key_uses(step.page, step.highlight) > 1:  # Streamlit refuses two elements with one key, at run time
            problems.append(f"{where}: page {step.page!r} gives the key {step.highlight!r} to more than its container")
        for field in ("instruction", "question"):
            if not _both(getattr(step, field)):
                problems.append(f"{where}: {field} lacks a language")
        kind = step.answer.get("kind")
        if kind == "choice":
            options = step.answer.get("options") or []
            if len(options) < 2 or not all(_both(o.get("label")) for o in options):
                problems.append(f"{where}: a choice needs two or more options in every language")
            values = [str(o.get("value", "")) for o in options]
            if len(set(values)) != len(values) or any(v != v.strip().lower() or not v for v in values):
                problems.append(f"{where}: option values must be distinct, lower case and not empty")
        elif kind != "text":
            problems.append(f"{where}: answer kind {kind!r} is neither 'choice' nor 'text'")
        if step.reveal.get("kind") not in reveals:
            problems.append(f"{where}: no reveal {step.reveal.get('kind')!r}")
    return problems
