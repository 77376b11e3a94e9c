"""No Markdown marker is ever shown as text: every string of the app, in both languages, rendered as the browser
renders it, keeps no ``**`` or ``__``.

CommonMark closes ``**`` only where the closing run is "right-flanking": after a letter, or after punctuation when a
space or punctuation follows. Chinese writes no space after its full stop, so ``**更没把握。**看得到`` shows its
asterisks; ``**更没把握**。看得到`` is bold. Streamlit renders Markdown with a CommonMark parser (GitHub's flavour:
tables and strikethrough besides), as markdown-it does here.

The strings: the locale files (app/locales/, the lessons' words included) and the shipped model's card, which the
overview shows. A ``{placeholder}`` is filled the way ``t()`` fills it, with a word and with a quoted share in turn:
whether ``**`` closes depends on the character beside it.
"""

from __future__ import annotations

import re
import string

import pytest
from markdown_it import MarkdownIt

from app.core.i18n import LANGUAGES, STRINGS, shares
from model.checkpoint import EMBEDDED_DIR

MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# Code shows its characters as they are (``**kwargs``, ``__init__``): its text is not read. A blank for a missing word
# is written as three underscores or more ("He went to the ___"); a leftover marker is a run of two.
LITERAL_TOKENS = {"code_inline", "code_block", "fence", "html_inline", "html_block"}
MARKER = re.compile(r"\*\*|(?<!_)__(?!_)")
SAMPLE_VALUES = ("word", "“50%”")  # a value's edges: a letter, or punctuation


def shown(markdown: str) -> str:
    """The text a reader sees of ``markdown``, code left out."""
    texts = []

    def read(tokens) -> None:
        for token in tokens:
            if token.type in LITERAL_TOKENS:
                continue
            if token.children:
                read(token.children)
            elif token.type == "text":
                texts.append(token.content)

    read(MARKDOWN.parse(markdown))
    return "\n".join(texts)


def filled(template: str, word: str) -> str:
    """``template`` with its placeholders filled as a page fills them: a share or a number where the format asks for
    one (through ``app.core.i18n.shares``, as ``t()`` does), ``word`` elsewhere."""
    values = {}
    for _, name, spec, _ in string.Formatter().parse(template):
        if name is None:
            continue
        if spec and spec[-1] in "%eEfFgG":
            values[name] = shares(0.5)
        elif spec in (",", "d"):
            values[name] = 1234
        else:
            values[name] = word
    return template.format_map(values)


def every_string() -> list[tuple[str, str, str]]:
    catalogue = [(key, lang, text) for key, entry in STRINGS.items() for lang, text in entry.items()]
    card = EMBEDDED_DIR / "README.md"
    return catalogue + [(card.name, "en", card.read_text(encoding="utf-8"))]


def markers_shown(text: str) -> list[str]:
    """Each sample filling of ``text`` that shows a marker, as rendered, around the marker."""
    found = []
    for word in SAMPLE_VALUES:
        seen = shown(filled(text, word))
        found += [seen[max(0, m.start() - 30) : m.end() + 30] for m in MARKER.finditer(seen)]
    return found


def test_the_check_sees_a_marker_that_does_not_close_and_passes_one_that_does():
    unclosed = markers_shown("答对了！ **更没把握。**看得到两侧时")
    assert unclosed and all("**更没把握。**" in seen for seen in unclosed)
    assert markers_shown("**更分散。**{layers} 层中") != []  # a number after the run: it still does not close
    assert markers_shown("答对了！ **更没把握**。看得到两侧时") == []
    assert markers_shown("**Less sure.** Seeing both sides, “{both}” at {both_p:.0%}") == []
    assert markers_shown("In code, `**kwargs` and `__init__`; a blank: the ___ and 我去___场") == []
    assert markers_shown("Layer 1 __init") != []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_string_shows_a_markdown_marker(lang):
    strings = [(where, text) for where, language, text in every_string() if language == lang]
    assert len(strings) > 1000
    shows = {where: markers_shown(text) for where, text in strings}
    assert not {where: found for where, found in shows.items() if found}
