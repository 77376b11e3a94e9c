"""Class mode across two replicas, for real: Debian's nginx in front of two app replicas, one redis-server behind
them, a teacher on one replica and a class of students on the other, through the whole class flow.

Each client is what a browser tab is to the server (``classroom_load.StudentTab``: Streamlit's websocket protocol,
the student's one-second poll of the room sent as the fragment reruns a browser sends). Sessions are sticky the way
a balancer keeps them: nginx routes every connection by a cookie (``replica=a`` for the teacher, ``b`` for the
students), since every client here is on loopback and ``ip_hash`` would send them all to one replica.

The flow, timed from the moment the teacher's run has published a change to the moment each student's run shows it:

1. **Join**: the teacher starts a class (replica a); the students open the join link (replica b) at once.
2. **Follow**: the teacher opens fill-mask with a sentence, then the attention page; each student's poll finds the
   room's new version in Redis and runs the teacher's page with the teacher's settings.
3. **Quiz**: the teacher asks a question on the class page; the students are brought back to it and send a guess
   each; the teacher reveals; each student's poll shows the class against BERT.

The class starts once both replicas have finished warming up (``serve.py``'s background work), as a class finds a
server started before the lesson. Reported: errors (goal 0); the p50 and p95 of following the teacher at each step; the p95 of the students' page runs
for fill-mask and attention against their floor, the model work of the same requests one after another (each
student's page asks for the teacher's sentence; the floor counts it once per student, uncached, as
``classroom_load`` does; goal: p95 at most 3 times the floor); the peak memory of each replica.

nginx is Debian's package, unpacked into the cache (``model.data.fetch.fetch_deb``) when it is not installed.

    .venv/bin/python bench/classroom_replicas.py [--students 60] [--timeout 600]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from classroom_load import StudentTab, free_port, p95, server_cpu, server_mb, settled, start_server  # noqa: E402

from app.core.i18n import strings_of  # noqa: E402

ATTENTION = strings_of("attention")
CLASS = strings_of("classroom")
FILL_MASK = strings_of("fill_mask")

SENTENCE = "Student {i} opened the [MASK] and walked into the hall."
TEACHER_SENTENCE = "The teacher opened the [MASK] and the class walked in."
QUESTION = "On the first day of school the [MASK] rang at eight."
STUDENT_POLL = 1.0  # app/classroom/session.py: the fragment's run_every


def nginx_binary() -> str:
    found = shutil.which("nginx")
    if found:
        return found
    from model.data.fetch import fetch_deb

    return str(fetch_deb("nginx") / "usr" / "sbin" / "nginx")


# An nginx that runs unprivileged from a temporary folder (``work``): the part of its configuration before the
# routing, which ``classroom_failover.py`` shares.
NGINX_PRELUDE = """
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
"""
NGINX_CONF = (
    NGINX_PRELUDE
    + """    map $cookie_replica $replica {{ a 127.0.0.1:{a}; default 127.0.0.1:{b}; }}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://$replica;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 3600s;
            proxy_buffering off;
        }}
    }}
}}
"""
)


@contextlib.contextmanager
def redis_server():
    port = free_port()
    work = tempfile.mkdtemp(prefix="bert-lab-redis-")
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", work],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    for _ in range(200):
        with contextlib.suppress(redis.ConnectionError):
            client.ping()
            break
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def nginx(a: int, b: int, conf: str = NGINX_CONF):
    """nginx on a free port in front of replicas on ports ``a`` and ``b``, with ``conf`` (a template of ``work``,
    ``a``, ``b`` and ``port``); yields its port."""
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="bert-lab-nginx-"))
    (work / "nginx.conf").write_text(conf.format(work=work, a=a, b=b, port=port))
    proc = subprocess.Popen(
        [
            nginx_binary(),
            "-p",
            str(work),
            "-e",
            str(work / "error.log"),
            "-c",
            str(work / "nginx.conf"),
            "-g",
            "daemon off;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        with contextlib.suppress(OSError):
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                break
        time.sleep(0.1)
    else:
        proc.kill()
        raise SystemExit(f"nginx did not answer: {(work / 'error.log').read_text()[-500:]}")
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def replica(redis_url: str):
    port = free_port()
    os.environ["BERT_LAB_REDIS_URL"] = redis_url  # start_server passes this process's environment on
    server = start_server(port)
    try:
        yield port, server
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
        if server.poll() is None:
            server.kill()


def widget(run, kind: str, key: str):
    return next(p for name, p in run.elements if name == kind and p.id.endswith(key))


class Student:
    """One student's tab on replica b, polling the room as the browser does."""

    def __init__(self, port: int, i: int):
        self.tab = StudentTab(port, cookie="replica=b")
        self.i = i
        self.page = "classroom"
        self.last = None

    async def join(self, code: str, lang: str) -> None:
        query = urllib.parse.urlencode({"room": code, "lang": lang, "text": SENTENCE.format(i=self.i)})
        self.last = await self.tab.run("classroom", query)
        if self.last.crashed or CLASS["student_intro"][lang].split("**")[0] not in self.last.text():
            raise RuntimeError(f"student {self.i} did not join: {self.last.text()[:200]}")

    async def poll_until(self, shows, page: str, deadline: float) -> tuple[float, float]:
        """Poll as the browser does until a run shows what ``shows(run)`` looks for; (seconds from now, the last
        run's own seconds)."""
        start = time.perf_counter()
        # A browser's timer runs on its own: the teacher's change lands anywhere in a student's second.
        wait = random.uniform(0, (self.tab.auto_rerun or (STUDENT_POLL, ""))[0])
        while time.perf_counter() < deadline:
            interval, fragment = self.tab.auto_rerun or (STUDENT_POLL, "")
            await asyncio.sleep(wait)
            wait = interval
            run = await self.tab.run(self.page, fragment_id=fragment, timeout=deadline - time.perf_counter())
            if run.crashed:
                raise RuntimeError(f"student {self.i}: exception on {self.page}")
            if run.elements and shows(run):
                self.page, self.last = page, run
                return time.perf_counter() - start, run.seconds
        raise TimeoutError(f"student {self.i} never saw {page}")

    async def guess(self, word: str) -> None:
        box = widget(self.last, "text_input", "classroom_guess")
        self.tab.widgets[box.id].string_value = word
        send = next(p for name, p in self.last.elements if name == "button" and p.is_form_submitter)
        run = await self.tab.run("classroom", press=send.id)
        if run.crashed or word not in run.text():
            raise RuntimeError(f"student {self.i}: the guess was not taken: {run.text()[-200:]}")
        self.last = run


def model_floor(students: int) -> dict[str, float]:
    """The model work of the students' fill-mask and attention runs on the teacher's sentence, one after another,
    uncached (as ``classroom_load.model_floor`` measures it)."""
    from model import inference
    from model.checkpoint import load

    bundle = load("embedded")
    work = {
        "fill_mask": lambda: (
            inference.fill_mask(bundle, TEACHER_SENTENCE, causal=False),
            inference.fill_mask(bundle, TEACHER_SENTENCE, causal=True),
        ),
        "attention": lambda: inference.attention_maps_both(bundle, TEACHER_SENTENCE),
    }
    floor = {}
    for name, run in work.items():
        run()
        start = time.perf_counter()
        for _ in range(students):
            run()
        floor[name] = time.perf_counter() - start
    return floor


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"| {name} | 0 | - | - | - |"
    return f"| {name} | {len(values)} | {statistics.median(values):.2f} | {p95(values):.2f} | {max(values):.2f} |"


async def class_flow(proxy: int, students: int, lang: str, timeout: float, pids: tuple[int, int]) -> None:
    errors: list[str] = []
    peaks = {"a": 0.0, "b": 0.0}

    async def watch_memory() -> None:
        while True:
            peaks["a"] = max(peaks["a"], server_mb(pids[0]))
            peaks["b"] = max(peaks["b"], server_mb(pids[1]))
            await asyncio.sleep(0.5)

    watcher = asyncio.create_task(watch_memory())
    follow: dict[str, list[float]] = {"fill_mask": [], "attention": [], "question": [], "reveal": []}
    page_runs: dict[str, list[float]] = {"fill_mask": [], "attention": []}
    cpu: dict[str, tuple[float, float]] = {}  # per step: the students' replica's CPU seconds, this process's
    async with StudentTab(proxy, cookie="replica=a") as teacher:
        run = await teacher.run("classroom", f"lang={lang}")
        run = await teacher.run("classroom", f"lang={lang}", press=widget(run, "button", "classroom_start").id)
        code = re.search(r"\*\*([A-Z0-9]{6})\*\*", run.text()).group(1)
        tabs = [Student(proxy, i) for i in range(students)]
        async with contextlib.AsyncExitStack() as stack:
            for s in tabs:
                await stack.enter_async_context(s.tab)
            joined = await asyncio.gather(*(s.join(code, lang) for s in tabs), return_exceptions=True)
            errors += [f"join: {e}" for e in joined if isinstance(e, BaseException)]
            present = [s for s, outcome in zip(tabs, joined) if not isinstance(outcome, BaseException)]

            async def step(name: str, page: str, shows) -> None:
                deadline = time.perf_counter() + timeout
                server_before, client_before = sum(server_cpu(pids[1])), time.process_time()
                outcomes = await asyncio.gather(
                    *(s.poll_until(shows, page, deadline) for s in present), return_exceptions=True
                )
                for outcome in outcomes:
                    if isinstance(outcome, BaseException):
                        errors.append(f"{name}: {type(outcome).__name__}: {outcome}")
                    else:
                        follow[name].append(outcome[0])
                        if name in page_runs:
                            page_runs[name].append(outcome[1])
                cpu[name] = (sum(server_cpu(pids[1])) - server_before, time.process_time() - client_before)

            # 2. Follow the teacher to fill-mask, then to the attention page.
            query = urllib.parse.urlencode({"lang": lang, "text": TEACHER_SENTENCE})
            await teacher.run("fill_mask", query)
            await step(
                "fill_mask", "fill_mask", lambda r: FILL_MASK["title"][lang] in r.text() and r.of_type("plotly_chart")
            )
            await teacher.run("attention", query)
            await step(
                "attention", "attention", lambda r: ATTENTION["title"][lang] in r.text() and r.of_type("plotly_chart")
            )

            # 3. The quiz: ask, guess, reveal.
            run = await teacher.run("classroom", query)
            box = widget(run, "text_input", "classroom_quiz_text")
            teacher.widgets[box.id].string_value = QUESTION
            await teacher.run("classroom", query, press=widget(run, "button", "classroom_ask_button").id)
            await step("question", "classroom", lambda r: "On the first day of school" in r.text())
            guesses = await asyncio.gather(
                *(s.guess(("bell", "clock", "teacher")[s.i % 3]) for s in present), return_exceptions=True
            )
            errors += [f"guess: {e}" for e in guesses if isinstance(e, BaseException)]
            run = await teacher.run("classroom", query)
            answered = CLASS["answered"][lang].format(n=len(present), present=len(present))
            if answered.split("**")[1] not in run.text():
                errors.append(f"the teacher's count of answers: {run.text()[-300:]}")
            await teacher.run("classroom", query, press=widget(run, "button", "classroom_reveal").id)
            await step("reveal", "classroom", lambda r: CLASS["results_header"][lang] in r.text())
    watcher.cancel()

    print(f"## {students} students on replica b follow a teacher on replica a (nginx, Redis)\n")
    print(f"joined {len(present)}/{students}; errors: {len(errors)}")
    for error in errors[:10]:
        print(f"- {error}")
    print("\n| following the teacher to | students | p50 s | p95 s | max s | replica b CPU s | load generator CPU s |")
    print("|---|---|---|---|---|---|---|")
    for name, values in follow.items():
        server, client = cpu.get(name, (float("nan"), float("nan")))
        print(f"{summary(name, values)} {server:.2f} | {client:.2f} |")
    floor = model_floor(students)
    print("\n| page run (students) | runs | p50 s | p95 s | max s |\n|---|---|---|---|---|")
    for name, values in page_runs.items():
        print(summary(name, values))
    print()
    for name, values in page_runs.items():
        ratio = p95(values) / floor[name] if values else float("nan")
        print(
            f"{name}: p95 {p95(values) or float('nan'):.2f} s against a floor of {floor[name]:.2f} s: {ratio:.2f}x; "
            f"the replica's CPU for the step {cpu[name][0]:.2f} s: {cpu[name][0] / floor[name]:.2f}x"
        )
    print(f"\nreplica peak memory: teacher's {peaks['a']:.0f} MB, students' {peaks['b']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=600, help="seconds a step may take")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args()
    with redis_server() as url, replica(url) as (a, server_a), replica(url) as (b, server_b), nginx(a, b) as proxy:
        # As a class finds them: each replica has finished warming up (serve.py: the model, the head lab's statistics).
        print(f"replicas settled after {settled(server_a.pid):.0f} s and {settled(server_b.pid):.0f} s\n")
        asyncio.run(class_flow(proxy, args.students, args.lang, args.timeout, (server_a.pid, server_b.pid)))


if __name__ == "__main__":
    main()
