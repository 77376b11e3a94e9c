"""axe-core in a Playwright page: the WCAG 2.1 A and AA rules' serious and critical violations.

axe-core (Deque, MPL-2.0) comes with the PyPI package axe-playwright-python (requirements-dev.txt), which bundles
``axe.min.js``; it is injected into the page as a script and run there."""

from __future__ import annotations

from pathlib import Path

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")


def axe_script() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def audit(page) -> list[dict]:
    """The serious and critical violations on ``page`` as it is now, each with its nodes."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_script())
    result = page.evaluate(
        "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_21_AA,
    )
    return [v for v in result["violations"] if v["impact"] in SERIOUS]
