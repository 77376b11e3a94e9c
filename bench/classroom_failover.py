"""A replica lost mid-lesson, and a rolling restart, with real browsers (issue 59).

Debian's nginx in front of two app replicas and one redis-server, as ``classroom_replicas.py`` runs them, but with
the deployment's own nginx file (``deploy/nginx-bert-lab.conf``), where each replica is the other's backup: a
connection whose replica does not answer goes to the live one. The teacher's
tab is on replica a, the students' tabs on b (nginx routes by a cookie, since every tab here is on loopback).
Each tab is a page of headless Chromium running Streamlit's own frontend, which reconnects by itself when its
server goes away; it then runs the page again on the replica that answers, as a new session, and takes its place in
the class back from its cookies (``app.classroom.session``).

1. A class: the teacher starts it, the students open its link, the teacher shows fill-mask, then asks a question
   on the class page; every student sends an answer.
2. **The teacher's replica killed** (``kill -9`` on a): timed until the teacher's tab has its class back (the
   "back in your class" notice); then the teacher shows the attention page and the students must follow. Replica a
   is started again.
3. **The students' replica killed** (``kill -9`` on b, while the students are on the class page): timed until each
   student's tab is back in the room, on the teacher's page, with the answer it sent shown; the teacher's count of
   students and answers must not change. Replica b is started again.
4. **A rolling restart** (a, then b, each stopped as a service manager stops it and started again) between two
   steps of the lesson: every tab must be back, follow the next step, and keep the room's answers.

Reported: each tab's seconds to reconnect and resume after each loss, whether it landed in the same room at the
teacher's page, the answers and students the teacher's page counts before and after, and any process left over.

    .venv/bin/python bench/classroom_failover.py [--students 12] [--lang en]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from browser_latency import READY, wait_ready  # noqa: E402
from classroom_load import free_port, settled, start_server  # noqa: E402
from classroom_replicas import NGINX_PRELUDE, nginx, redis_server  # noqa: E402

from app.core.i18n import strings_of  # noqa: E402

CLASS = strings_of("classroom")

# The deployment's own nginx file (``deploy/nginx-bert-lab.conf``: each replica the other's backup), its ports
# changed to this run's, inside an nginx that runs unprivileged from a temporary folder.
DEPLOYED = (ROOT / "deploy" / "nginx-bert-lab.conf").read_text(encoding="utf-8")
FAILOVER_CONF = (
    NGINX_PRELUDE
    + DEPLOYED.replace("{", "{{")
    .replace("}", "}}")
    .replace("127.0.0.1:8501", "127.0.0.1:{a}")
    .replace("127.0.0.1:8502", "127.0.0.1:{b}")
    .replace("listen 80;", "listen 127.0.0.1:{port};")
    + "}}\n"  # the http block's end
)


class Replica:
    """One app replica on a fixed port, which the bench kills, stops and starts again."""

    def __init__(self, name: str, redis_url: str):
        self.name, self.port = name, free_port()
        os.environ["BERT_LAB_REDIS_URL"] = redis_url  # start_server passes this process's environment on
        self.process = start_server(self.port)

    def kill(self) -> None:
        """As a crash: no goodbye to any tab."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        """As systemd stops the service (``deploy/bert-lab@.service``): SIGTERM, then SIGKILL after 20 s."""
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def start(self) -> float:
        """Start again on the same port; seconds until it has warmed up."""
        started = time.perf_counter()
        self.process = start_server(self.port)
        settled(self.process.pid)
        return time.perf_counter() - started


def children_of(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            if fields.get("PPid", "").strip() == str(pid):
                found.append(int(status.parent.name))
    return found


def orphans(names: tuple[str, ...] = ("streamlit", "multiprocessing", "serve.py")) -> list[str]:
    """Processes of the app left running by a killed replica (re-parented to init)."""
    left = []
    for pid in children_of(1):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if any(name in command for name in names) and str(ROOT) in Path(f"/proc/{pid}/cwd").resolve().as_posix():
                left.append(f"{pid} {command[:80]}")
    return left


def until_all(tabs: dict[str, object], done, limit: float) -> dict[str, float | None]:
    """Seconds from now until ``done(tab)`` first holds, for each tab (looked at in turn every 100 ms; None: not
    within ``limit``)."""
    start, times = time.perf_counter(), dict.fromkeys(tabs)
    while time.perf_counter() - start < limit and None in times.values():
        for name, tab in tabs.items():
            if times[name] is None:
                with contextlib.suppress(Exception):  # a tab between two documents answers nothing for a moment
                    if done(tab):
                        times[name] = time.perf_counter() - start
        time.sleep(0.1)
    return times


def shows(tab, text: str) -> bool:
    return tab.get_by_text(text, exact=False).count() > 0


def counts(teacher, lang: str) -> str:
    """What the teacher's class page says of answers and students ("Answers: 6 of 6 students.")."""
    head = CLASS["answered"][lang].split("**")[0]
    texts = [t for t in teacher.locator('[data-testid="stMarkdownContainer"]').all_inner_texts() if head in t]
    return texts[0].strip() if texts else "(none)"


def on_page(tab, name: str) -> bool:
    return tab.evaluate("() => location.pathname").rstrip("/").endswith(name)


def go(teacher, name: str, tabs: dict | None = None, limit: float = 60) -> dict[str, float | None]:
    """The teacher opens page ``name``; the seconds from the click until each of ``tabs`` shows it too."""
    teacher.locator(f'[data-testid="stSidebarNav"] a[href$="/{name}"]').click()
    followed = until_all(tabs, lambda t: on_page(t, name), limit) if tabs else {}
    keep_screens(tabs or {}, followed, f"follow-{name}")
    teacher.wait_for_function(f"() => location.pathname.endsWith('/{name}')")
    wait_ready(teacher)
    return followed


def keep_screens(tabs: dict, times: dict[str, float | None], what: str) -> None:
    """A screenshot of each tab that did not get there, and where it is, to look at afterwards."""
    for name in [name for name, seconds in times.items() if seconds is None]:
        shot = Path(tempfile.gettempdir()) / f"failover-{what}-{name}.png"
        tabs[name].screenshot(path=str(shot), full_page=True)
        state = tabs[name].evaluate(
            """() => { const app = document.querySelector('[data-testid="stApp"]');
              return [app.getAttribute('data-test-connection-state'), app.getAttribute('data-test-script-state'),
                      document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]').length]; }"""
        )
        print(f"  {name} did not: {tabs[name].url}, its screen in {shot}; connection, script, elements: {state}")


def report(title: str, times: dict[str, float | None]) -> None:
    done = [t for t in times.values() if t is not None]
    line = ", ".join(f"{name} {'-' if t is None else f'{t:.1f}'}" for name, t in times.items())
    middle = f"median {statistics.median(done):.1f} s, max {max(done):.1f} s" if done else "none"
    print(f"{title}: {len(done)} of {len(times)} within the limit ({middle}): {line}", flush=True)


# Armed in a tab before a replica goes down: when its connection was lost and when it was back (Streamlit's own
# state on its app element), and whether the "back in your class" notice appeared after the loss (looked for on
# every change of the page, since it is shown for a while, not for good).
WATCH = """(notice) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const w = window.__watch = {lost: null, back: null, notice: null};
  new MutationObserver(() => {
    const connected = app.getAttribute('data-test-connection-state') === 'CONNECTED';
    if (!connected && w.lost === null) w.lost = Date.now();
    if (connected && w.lost !== null && w.back === null) w.back = Date.now();
    if (w.lost !== null && w.notice === null && document.body.textContent.includes(notice)) w.notice = Date.now();
  }).observe(document.body, {attributes: true, childList: true, subtree: true, characterData: true});
}"""


def resumed(tab, page: str, *texts: str) -> bool:
    """The tab lost its connection, is connected again with its page run on the new session (not the old page's
    stale elements), on ``page`` and showing ``texts``."""
    watch = tab.evaluate("() => window.__watch")
    if not watch or watch["back"] is None:
        return False
    return tab.locator(READY).count() > 0 and on_page(tab, page) and all(shows(tab, text) for text in texts)


def after_loss(title: str, tabs: dict, page: str, texts: tuple[str, ...], notice: str, lost, limit: float) -> None:
    """``lost()`` takes a replica down; then how long each tab took to be back on ``page`` showing ``texts``, and
    whether it showed ``notice`` (that it is back in its class) on the way."""
    for tab in tabs.values():
        tab.evaluate(WATCH, notice)
    started = time.time()
    lost()
    times = until_all(tabs, lambda t: resumed(t, page, *texts), limit)
    report(title, times)
    keep_screens(tabs, times, f"back-{page}")
    watches = {name: tab.evaluate("() => window.__watch") for name, tab in tabs.items()}
    told = sum(w["notice"] is not None for w in watches.values())
    reconnected = [(w["back"] / 1000 - started) for w in watches.values() if w["back"] is not None]
    print(
        f"  connection back after {statistics.median(reconnected):.1f} s (median), {max(reconnected):.1f} s (max); "
        f"{told} of {len(tabs)} tabs showed the notice",
        flush=True,
    )


def lesson(proxy: int, replicas: dict[str, Replica], students: int, lang: str, limit: float) -> None:
    from playwright.sync_api import sync_playwright

    url = f"http://127.0.0.1:{proxy}"
    resumed = CLASS["notice_resumed"][lang]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])

        def tab(replica: str, width: int):
            context = browser.new_context(viewport={"width": width, "height": 900})
            context.add_cookies([{"name": "replica", "value": replica, "url": url}])
            page = context.new_page()
            page.set_default_timeout(120_000)
            return page

        teacher = tab("a", 1280)
        teacher.goto(f"{url}/classroom?lang={lang}")
        wait_ready(teacher)
        teacher.get_by_role("button", name=CLASS["start_button"][lang]).click()
        link = teacher.get_by_test_id("stCode").first.inner_text(timeout=60_000).strip()
        code = link.split("room=")[1]
        class_tabs = {f"s{i}": tab("b", 800) for i in range(students)}
        everyone = {"teacher": teacher, **class_tabs}
        for page in class_tabs.values():
            page.goto(f"{link}&lang={lang}")
        joined = until_all(class_tabs, lambda t: shows(t, CLASS["student_intro"][lang].split("**")[0]), limit)
        report("students joined", joined)

        report("students followed the teacher to fill-mask", go(teacher, "fill_mask", class_tabs, limit))
        go(teacher, "classroom")
        teacher.get_by_role("button", name=CLASS["ask_button"][lang]).click()
        wait_ready(teacher)
        box = CLASS["guess_label"][lang]
        asked = until_all(class_tabs, lambda t: on_page(t, "classroom") and t.get_by_label(box).count() > 0, limit)
        report("students brought back to the question", asked)
        keep_screens(class_tabs, asked, "question")
        class_tabs = {name: tab for name, tab in class_tabs.items() if asked[name] is not None}
        for i, page in enumerate(class_tabs.values()):
            page.get_by_label(box).fill(f"word{i}")
            page.get_by_role("button", name=CLASS["send_button"][lang]).click()
        sent = CLASS["guess_sent"][lang].split("{guess}")[0]
        report("answers sent", until_all(class_tabs, lambda t: shows(t, sent), limit))
        teacher.wait_for_timeout(3000)  # the teacher's count polls every few seconds
        before = counts(teacher, lang)
        print(f"the teacher's class page: {before}\n", flush=True)

        # 2. The teacher's replica killed: the teacher's tab must have its room back, on its page.
        title = "teacher back in the room, on the class page, after replica a was killed"
        after_loss(title, {"teacher": teacher}, "classroom", (code,), resumed, replicas["a"].kill, limit)
        print(f"  the teacher's class page: {counts(teacher, lang)} (before: {before})")
        report("  then the students followed the teacher to attention", go(teacher, "attention", class_tabs, limit))
        print(f"  replica a started again, warmed in {replicas['a'].start():.0f} s\n", flush=True)

        # 3. The students' replica killed, while they are on the class page with their answers shown.
        go(teacher, "classroom")
        until_all(class_tabs, lambda t: on_page(t, "classroom") and shows(t, sent), limit)
        title = "students back in the room, on the teacher's page, their answer shown, after replica b was killed"
        after_loss(title, class_tabs, "classroom", (code, sent), resumed, replicas["b"].kill, limit)
        teacher.wait_for_timeout(3000)
        print(f"  the teacher's class page: {counts(teacher, lang)} (before: {before})")
        print(f"  replica b started again, warmed in {replicas['b'].start():.0f} s\n", flush=True)

        # 4. A rolling restart between two steps: a, then b. Every tab is on a by now (b was killed last, and the
        # teacher's tab moved to b when a was killed, then to a), so each stop moves them all to the other replica.
        for name, step in (("a", "nsp"), ("b", "embeddings")):
            where = "nsp" if name == "b" else "classroom"
            title = f"tabs back in the room after replica {name} stopped"
            after_loss(title, everyone, where, (code,), resumed, replicas[name].stop, limit)
            print(f"  replica {name} started again, warmed in {replicas[name].start():.0f} s", flush=True)
            report(f"  then the students followed the teacher to {step}", go(teacher, step, class_tabs, limit))
        go(teacher, "classroom")
        teacher.wait_for_timeout(3000)
        print(f"\nafter the rolling restart the teacher's class page: {counts(teacher, lang)} (before: {before})")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=12)
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--limit", type=float, default=60, help="seconds to wait for each tab at each step")
    args = parser.parse_args()
    with redis_server() as redis_url:
        replicas = {name: Replica(name, redis_url) for name in ("a", "b")}
        try:
            with nginx(replicas["a"].port, replicas["b"].port, FAILOVER_CONF) as proxy:
                for replica in replicas.values():
                    print(f"replica {replica.name} warmed up in {settled(replica.process.pid):.0f} s", flush=True)
                lesson(proxy, replicas, args.students, args.lang, args.limit)
        finally:
            for replica in replicas.values():
                replica.stop()
    time.sleep(2)
    print(f"\nprocesses of the app left running: {orphans() or 'none'}")


if __name__ == "__main__":
    main()
