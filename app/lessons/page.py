"""The lessons page: every lesson with its steps, and a button to start it. The steps themselves run on the other
pages, under the card (``app.lessons.card``)."""

from __future__ import annotations

import streamlit as st

from app.core import ui
from app.core.i18n import t
from app.core.state import PageContext
from app.lessons.card import picker
from app.lessons.data import lessons


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("lessons.title"), t("lessons.lead"))
    picker()
    for lesson in lessons().values():
        with st.expander(t("lessons.outline", title=lesson.title[context.lang])):
            st.markdown(
                "\n".join(
                    f"{number}. **{t(f'{step.page}.nav')}**: {step.question[context.lang]}"
                    for number, step in enumerate(lesson.steps, start=1)
                )
            )
