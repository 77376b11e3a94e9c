"""Every download button of every page (data as CSV or JSON, each chart as interactive HTML) gives its file when
clicked. The files are made by functions that Streamlit calls outside the script run (no session state there), so
each is called here the same way, after the run."""

from __future__ import annotations

import csv
import io
import json

import pytest
from apptest_helpers import start_app_page
from streamlit.runtime.media_file_manager import MediaFileManager

from app.core.navigation import PAGE_FILES

# Beyond each page's first view: the sections and steps that have downloads of their own.
VIEWS = [(name, {}) for name in PAGE_FILES] + [
    ("attention", {"attention_section": "heads"}),
    ("heads", {"heads_step": 3}),
    ("heads", {"heads_step": 4}),
    ("embeddings", {"embeddings_use_pair": True}),
]


@pytest.fixture
def deferred(monkeypatch) -> list:
    """The (callable, mime type, file name) of every download button the runs register."""
    registered = []
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        registered.append((data_callable, mimetype, file_name))
        return add(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return registered


SENTENCES = {
    "en": "She opened the [MASK] and walked in.",
    "zh": "我去[MASK]场看电影。",
    # What a CSV or JSON writer could trip on: quotes, commas, new lines, control characters, markup.
    "hostile": 'a "quoted", comma\nnew line \x00\x1b[31m <script>alert(1)</script> 🙂 [MASK] 混合',
}


@pytest.mark.parametrize("sentence", list(SENTENCES))
@pytest.mark.parametrize(("name", "view"), VIEWS, ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)))
def test_every_download_gives_its_file_outside_the_run(name, view, sentence, deferred):
    lang = "zh" if sentence == "zh" else "en"
    at = start_app_page(name, lang, text=SENTENCES[sentence], **view)
    assert not at.exception, at.exception[0].message if at.exception else ""
    buttons = at.get("download_button")
    assert len(deferred) == len(buttons)  # every button's file is made on click, none on the run
    for make, mime, file_name in deferred:
        content = make()
        if mime == "text/csv":
            header, *rows = list(csv.reader(io.StringIO(content)))
            assert header and all(len(row) == len(header) for row in rows), file_name
        elif mime == "text/html":  # a chart as interactive HTML, plotly.js inlined so that it works offline
            assert content.startswith("<!doctype html>") and "Plotly.newPlot" in content, file_name
            assert 'src="https://' not in content and "<script>alert(1)</script>" not in content, file_name
        else:
            assert mime == "application/json" and json.loads(content), file_name
