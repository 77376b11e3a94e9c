"""One view of a background training job for every page that starts one (fine-tuning, live pre-training): the
Start and Stop buttons, the job's status in words, and a part of the page that polls the job once a second while
it trains, so the rest of the page stays usable.

A page keeps its job in ``st.session_state[job_key]`` (an ``app.core.jobs.BackgroundJob`` with ``snapshot()``) and
says what is its own: how to start a job, how a running job reads, and what to draw from a snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from app.core import jobs


@dataclass(frozen=True)
class StatusText:
    """A page's words for a job's status; ``queued`` has {slots} and {ahead}, ``failed`` has {error}."""

    queued: str
    stopped: str
    stopped_owner: str
    failed: str


def current(job_key: str):
    """This session's job under ``job_key``, or None."""
    return st.session_state.get(job_key)


def is_active(job_key: str) -> bool:
    job = current(job_key)
    return job is not None and not job.snapshot().finished


def buttons(
    job_key: str,
    start: Callable[..., object],
    *,
    labels: tuple[str, str],
    key: str,
    args: tuple = (),
    start_disabled: bool = False,
) -> bool:
    """Start and Stop in one row that keeps both labels whole at any width; True while the job is active.
    ``start(*args)`` makes the new job; it runs as the button's callback, before the page, so the new job is there
    when the page draws. A new job stops the session's previous one (a session keeps one job per page)."""

    def begin() -> None:
        previous = current(job_key)
        if previous is not None:
            previous.stop()
        st.session_state[job_key] = start(*args)

    def end() -> None:
        job = current(job_key)
        if job is not None:
            job.stop()

    active = is_active(job_key)
    row = st.container(horizontal=True)
    row.button(
        labels[0], type="primary", disabled=active or start_disabled, on_click=begin, key=f"{key}_start", icon="▶️"
    )
    row.button(labels[1], disabled=not active, on_click=end, key=f"{key}_stop", icon="⏹️")
    return active


def show_status(snapshot, text: StatusText, *, running: Callable[[], None], done: Callable[[], str]) -> None:
    """The job's status in words: queued (with the classroom's slots), running (the page's own ``running()``),
    done (the page's ``done()``), stopped (by the reader, or because the session left), or failed."""
    if snapshot.status == jobs.QUEUED:
        st.info(text.queued.format(slots=jobs.MAX_TRAININGS, ahead=snapshot.ahead), icon="⏳")
    elif snapshot.status == jobs.RUNNING:
        running()
    elif snapshot.status == jobs.DONE:
        st.success(done())
    elif snapshot.status == jobs.STOPPED:
        st.warning(text.stopped_owner if snapshot.stop_reason == "owner" else text.stopped)
    else:
        st.error(text.failed.format(error=snapshot.error))


def live(job_key: str, active: bool, draw: Callable[[object], None], no_job: str) -> None:
    """``draw(snapshot)`` in a fragment that reruns once a second while the job is active; the whole page reruns
    once when it finishes, so what the page shows below a finished job appears."""

    @st.fragment(run_every=1.0 if active else None)
    def poll() -> None:
        job = current(job_key)
        if job is None:
            st.markdown(no_job)
            return
        snapshot = job.snapshot()
        draw(snapshot)
        if active and snapshot.finished:
            st.rerun()

    poll()
