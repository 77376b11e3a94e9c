"""BERT Lab's entry: set up the session, draw the shared sidebar, route to the page."""

import streamlit as st

from app.classroom.session import class_quiz, follow_teacher, publish_and_show
from app.core.i18n import t
from app.core.navigation import mark_entry, pages
from app.core.sidebar import phone_sentence, render_sidebar
from app.core.state import init_state, sync_url
from app.core.ui import apply_display
from app.lessons import card as lesson_card

st.set_page_config(page_title="BERT Lab", page_icon="app/icon.png", layout="wide")
init_state()
apply_display(st.session_state["presenter"])
page = st.navigation(pages(), expanded=True)  # every page listed: no "View more" hiding four, in English
follow_teacher(page)  # class mode: a following student takes the teacher's page and settings first
lesson_card.follow(page)  # a lesson's Next/Back or link: the step's page, with its settings, before the sidebar
context = render_sidebar()
sync_url()  # the only write of the URL in a run: widgets' callbacks have all run before the script
publish_and_show(page)  # class mode: the teacher's view goes to the room; the class panel in the sidebar
st.sidebar.caption(t("common.app_title"))
mark_entry(context)
lesson_card.show(page, context, class_quiz())  # while a lesson is on: its card above the page
phone_sentence()  # the sentence box in the page, shown only on a phone's width
page.run()
