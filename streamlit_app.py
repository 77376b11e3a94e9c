"""BERT Lab's entry: set up the session, draw the shared sidebar, route to the page."""

import streamlit as st

from app.classroom.session import follow_teacher, publish_and_show
from app.core.i18n import t
from app.core.navigation import mark_entry, pages
from app.core.sidebar import render_sidebar
from app.core.state import init_state, sync_url
from app.core.ui import apply_display

st.set_page_config(page_title="BERT Lab", page_icon="app/icon.png", layout="wide")
init_state()
apply_display(st.session_state["presenter"])
page = st.navigation(pages())
follow_teacher(page)  # class mode: a following student takes the teacher's page and settings first
context = render_sidebar()
sync_url()  # the only write of the URL in a run: widgets' callbacks have all run before the script
publish_and_show(page)  # class mode: the teacher's view goes to the room; the class panel in the sidebar
st.sidebar.caption(t("common.app_title"))
mark_entry(context)
page.run()
