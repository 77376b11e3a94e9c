"""Hand-edited and hostile links: every shared-link parameter given wrong types, huge values, unicode and repeats
(hypothesis) never ends in a traceback. Values a link may not set fall back to their defaults."""

from __future__ import annotations

from apptest_helpers import APP
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from app.core.navigation import PAGE_FILES
from app.core.state import SETTINGS, _linked_value

NAMES = sorted(SETTINGS) + ["text", "room", "teacher", "page", ""]
# What a hand-edited link can hold: any text (control characters, right-to-left, emoji), numbers far out of range,
# floats, negative numbers, lists, and the encodings of other settings' values.
VALUES = st.one_of(
    st.text(max_size=60),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.lists(st.integers(min_value=-5, max_value=10**6), max_size=5).map(lambda xs: ",".join(map(str, xs))),
    st.sampled_from(["1", "0", "true", "None", "[]", "{}", "1.5", "0x10", "１", "٣", "-0", " 3 ", "3,3", "a.b"]),
    st.text(alphabet="0123456789.,", max_size=20),
    st.just("x" * 20_000),
)
LINKS = st.dictionaries(st.one_of(st.sampled_from(NAMES), st.text(max_size=12)), VALUES, max_size=8)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(name=st.sampled_from(sorted(SETTINGS)), raw=VALUES)
def test_a_setting_takes_a_links_value_or_its_default_and_never_raises(name, raw):
    setting = SETTINGS[name]
    value = _linked_value(setting, raw)
    assert value == setting.default or value == setting.parse(raw)


@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(link=LINKS, page=st.sampled_from(PAGE_FILES), repeated=st.sampled_from(sorted(SETTINGS)))
def test_a_hostile_link_opens_every_page_without_a_traceback(link, page, repeated):
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in link.items():
        if key:
            at.query_params[key] = value
    at.query_params[repeated] = ["1", "2"]  # a parameter given twice
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    assert at.title or at.header  # the page drew
