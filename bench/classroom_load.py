"""A whole classroom at once, on loopback only: N sessions of Streamlit's own websocket protocol, one server.

Each simulated student is what a browser tab is to the server: a websocket on ``/_stcore/stream`` that sends
``BackMsg`` rerun requests (page, query string, widget states, fragment reruns) and reads ``ForwardMsg``
deltas until the script run finishes. No browser runs, so the measurement is the server's work, not
Chromium's rendering on the same two cores.

Phase 1: once the server has finished warming up (a teacher's first visit, then serve.py's background work;
``--cold`` skips the wait), N sessions at the same moment each open the fill-mask page with their own sentence
(nothing cached), then the attention page; a page counts as answered when its run finishes with a chart and no
exception. Before the server starts, the same run measures the **floor**: the model work of those N
requests (every forward pass each page makes for its sentence) one after another in this process, without
Streamlit, with the server's torch settings. The last line of phase 1 is one JSON object: p95 and floor of
each page in seconds, the server's peak memory in MB, and the errors. Phase 2: three sessions press "Start fine-tuning" at the same moment (the server allows
``BERT_LAB_MAX_TRAININGS=2`` at once, so one must show the queue message) while ten more keep using
fill-mask and attention; all three must report held-out results. Phase 3: sessions open a page and
close in waves; the server's memory afterwards shows whether closed sessions are freed. Phase 4: four tabs
start fine-tuning and close at once; once the server has dropped their sessions (its
``server.disconnectedSessionTTL``, shortened here to ``--session-ttl``), their trainings must have stopped:
memory back down, and a new Start trains at once instead of queueing.

With ``--bert-base`` the server runs in classroom mode (``BERT_LAB_MODELS_DIR``) over a folder holding one random
BERT-Base checkpoint (12 layers, 768 wide, 12 heads, the embedded vocabulary, float16 on disk), and every student
first picks it in the sidebar on the overview page: the pages they time, and the floor, run BERT-Base.

    .venv/bin/python bench/classroom_load.py [--sessions 30] [--waves 10] [--timeout 900] [--phases 1,2,3,4] [--cold]
                                             [--bert-base]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from app.core.i18n import strings_of  # noqa: E402

FINETUNE_TEXT = strings_of("finetune")


FINETUNE_QUERY = "lang=en"
QUEUED_TEXT = FINETUNE_TEXT["queued"]["en"].split("{")[0].strip()  # the queue message, up to its first number
# The place the queue message gives: how many students are ahead.
QUEUE_PLACE = re.compile(
    re.escape(FINETUNE_TEXT["queued"]["en"]).replace(r"\{ahead\}", r"(\d+)").replace(r"\{slots\}", r"\d+")
)
EN_TEMPLATES = ("Student {i} opened the [MASK] and walked in.", "On day {i} the [MASK] rose over the hills.")
ZH_TEMPLATES = ("第{i}位同学去[MASK]场看电影。", "我们第{i}次去北[MASK]开会。")
FINISHED = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


MODELS_DIR: Path | None = None  # --bert-base: the classroom-mode folder whose one entry every student picks


def write_bert_base(models_dir: Path) -> Path:
    """A random BERT-Base in the app's checkpoint layout (``save_folder``), with the embedded model's vocabulary."""
    import torch

    from model.checkpoint import load, save_folder
    from model.modeling import BertConfig, BertForPreTraining

    embedded = load("embedded")
    config = BertConfig.from_dict(
        embedded.config.to_dict()
        | {"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072}
    )
    with torch.device("meta"):
        model = BertForPreTraining(config)
    model.to_empty(device="cpu")
    model.init_weights(torch.Generator().manual_seed(0))
    return save_folder(model, embedded.tokenizer, models_dir / "bert-base-random", dtype=torch.float16)


async def pick_models_dir_entry(tab: StudentTab, query: str) -> None:
    """Choose the models folder's entry in the sidebar (the selectbox's second option, "A folder"), on the cheap
    overview page, so that the pages timed afterwards run on it."""
    run = await tab.run("overview", query)
    choice = next(p for name, p in run.elements if name == "selectbox" and p.id.endswith("w_model_choice"))
    tab.widgets[choice.id].string_value = choice.options[1]
    run = await tab.run("overview", query)
    if run.crashed or not any("768" in getattr(p, "body", "") for _, p in run.elements):
        raise RuntimeError("the sidebar did not switch to the models folder's entry")


def sentence(i: int) -> tuple[str, str]:
    """A different sentence per student, so no answer comes from another student's cache entry."""
    lang = "zh" if i % 2 else "en"
    templates = ZH_TEMPLATES if lang == "zh" else EN_TEMPLATES
    return lang, templates[(i // 2) % len(templates)].format(i=i)


@dataclass
class PageRun:
    """What one script run put on the page."""

    seconds: float
    elements: list = field(default_factory=list)  # (element type, proto) in arrival order

    def of_type(self, kind: str) -> list:
        return [proto for name, proto in self.elements if name == kind]

    @property
    def crashed(self) -> bool:
        return bool(self.of_type("exception"))

    def text(self) -> str:
        parts = [a.body for a in self.of_type("alert")] + [h.body for h in self.of_type("heading")]
        return "\n".join(parts + [m.body for m in self.of_type("markdown")])


def widget_state(kind: str, proto) -> WidgetState | None:
    """The value a browser reports for a widget it shows (its default, or what the server set), so a rerun
    sees the whole form as a student left it; buttons report only when pressed."""
    if not hasattr(proto, "default"):
        return None
    state = WidgetState(id=proto.id)
    if kind in ("selectbox", "radio") and proto.options:
        state.string_value = proto.raw_value if proto.set_value else proto.options[proto.default]
    elif kind == "slider":
        state.double_array_value.data.extend(proto.value if proto.set_value else proto.default)
    elif kind == "checkbox":
        state.bool_value = proto.value if proto.set_value else proto.default
    elif kind in ("text_area", "text_input"):
        state.string_value = proto.value if proto.set_value else proto.default
    else:
        return None
    return state


class StudentTab:
    """One browser tab as the server sees it: a websocket speaking Streamlit's BackMsg / ForwardMsg protobufs."""

    def __init__(self, port: int, cookie: str = ""):
        self.url = f"ws://127.0.0.1:{port}/_stcore/stream"
        self.headers = {"Cookie": cookie} if cookie else {}  # a load balancer's sticky routing reads it
        self.messages: asyncio.Queue = asyncio.Queue()
        self.auto_rerun: tuple[float, str] | None = None  # (interval, fragment id) while a fragment polls
        self.page_hash = ""  # the page the last run showed, as a browser remembers it
        self.widgets: dict[str, WidgetState] = {}  # what the page shows, as the browser would send it back

    async def __aenter__(self) -> Self:
        self.socket = await websockets.connect(
            self.url, subprotocols=["streamlit"], max_size=None, open_timeout=120, additional_headers=self.headers
        )
        self.reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc) -> None:
        self.reader.cancel()
        await self.socket.close()

    async def _read(self) -> None:
        async for data in self.socket:
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "navigation":  # the page this run shows, which a fragment's rerun must name
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "auto_rerun":
                self.auto_rerun = (msg.auto_rerun.interval, msg.auto_rerun.fragment_id)
            elif kind == "stop_auto_rerun":
                self.auto_rerun = None
            await self.messages.put(msg)

    async def run(
        self, page: str, query: str = "", press: str = "", fragment_id: str = "", timeout: float = 600
    ) -> PageRun:
        """Ask for a run of ``page`` (pressing the button with id ``press``) and collect its elements until the
        run, and any rerun it asked for, ends."""
        back = BackMsg()
        state = back.rerun_script
        state.query_string = query
        state.page_name = page
        state.widget_states.widgets.extend(self.widgets.values())
        if press:
            state.widget_states.widgets.append(WidgetState(id=press, trigger_value=True))
        if fragment_id:
            state.fragment_id, state.is_auto_rerun, state.page_script_hash = fragment_id, True, self.page_hash
        start = time.perf_counter()
        await self.socket.send(back.SerializeToString())
        result = PageRun(0.0)
        while True:
            msg = await asyncio.wait_for(self.messages.get(), timeout)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                name = element.WhichOneof("type")
                result.elements.append((name, getattr(element, name)))
                reported = widget_state(name, getattr(element, name))
                if reported is not None:
                    self.widgets[reported.id] = reported
            elif kind == "script_finished":
                if msg.script_finished in FINISHED:
                    result.seconds = time.perf_counter() - start
                    return result
                result.elements.clear()  # the script asked for a rerun: only the last run's page counts


def server_mb(pid: int) -> float:
    """Resident memory of the server plus its child processes (fine-tuning runs train in children), in MB."""
    total_kb = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:  # it exited while we looked
            continue
        if status.parent.name == str(pid) or fields.get("PPid", "").strip() == str(pid):
            total_kb += int(fields.get("VmRSS", "0 kB").split()[0])
    return total_kb / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(**options) -> Iterator[tuple[int, subprocess.Popen]]:
    """The app on a free loopback port (``options`` as for ``start_server``), and its port; stopped on exit."""
    port = free_port()
    server = start_server(port, **options)
    try:
        yield port, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def start_server(port: int, max_trainings: int = 2, session_ttl: int = 120) -> subprocess.Popen:
    """The app on loopback, offline, with Streamlit's own defaults unless told otherwise; returns once healthy."""
    env = {
        **os.environ,
        **({"BERT_LAB_MODELS_DIR": str(MODELS_DIR)} if MODELS_DIR is not None else {}),
        "HOME": tempfile.mkdtemp(),
        "HF_HUB_OFFLINE": "1",
        "BERT_LAB_MAX_TRAININGS": str(max_trainings),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "serve.py",  # the README's command
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.disconnectedSessionTTL",
            str(session_ttl),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(400):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the app did not start")


async def student(port: int, i: int, timings: dict, errors: list) -> None:
    """Open fill-mask with this student's sentence, then the attention page; record each answer's latency."""
    lang, text = sentence(i)
    query = urllib.parse.urlencode({"lang": lang, "text": text})
    try:
        async with StudentTab(port) as tab:
            if MODELS_DIR is not None:
                await pick_models_dir_entry(tab, query)
            for page in ("fill_mask", "attention"):
                run = await tab.run(page, query)
                if run.crashed:
                    errors.append(f"student {i}: exception on {page}")
                elif not run.of_type("plotly_chart"):
                    errors.append(f"student {i}: no chart on {page}")
                else:
                    timings[page].append(run.seconds)
    except Exception as e:  # noqa: BLE001 - a student who gets nothing is a finding to report, not a crash of the benchmark
        errors.append(f"student {i}: {type(e).__name__}: {e}")


async def fine_tuner(
    port: int, i: int, outcome: dict, deadline: float, delay: float = 0.0, leave_when_queued: bool = False
) -> None:
    """Press Start on the default fine-tuning run (after ``delay`` seconds) and poll, as the page's fragment does,
    until results show; or, with ``leave_when_queued``, close the tab once the queue message says its place. Records
    the first place the page gave (students ahead), the seconds spent queued and the seconds to results."""
    await asyncio.sleep(delay)
    try:
        async with StudentTab(port) as tab:
            started = time.perf_counter()
            run = await press_start(tab)
            while FINETUNE_TEXT["results_header"]["en"] not in run.text():
                if run.crashed:
                    raise RuntimeError("exception on the fine-tuning page")
                place = QUEUE_PLACE.search(run.text())
                if place:
                    outcome.setdefault("queued", set()).add(i)
                    outcome.setdefault("place", {}).setdefault(i, int(place.group(1)))
                    if leave_when_queued:
                        outcome.setdefault("left", set()).add(i)
                        return
                elif i in outcome.get("queued", ()) and i not in outcome.setdefault("waited", {}):
                    outcome["waited"][i] = time.perf_counter() - started
                if time.perf_counter() > deadline:
                    raise TimeoutError("no results before the deadline")
                if tab.auto_rerun is None:  # the poll stopped: the fragment asked for the whole page
                    run = await tab.run("finetune", FINETUNE_QUERY)
                    continue
                interval, fragment = tab.auto_rerun
                await asyncio.sleep(interval)
                run = await tab.run("finetune", FINETUNE_QUERY, fragment_id=fragment)
            outcome.setdefault("finished", {})[i] = time.perf_counter() - started
            accuracy, steps, _ = (m.body for m in run.of_type("metric")[:3])  # the page's result metrics, in order
            outcome.setdefault("accuracy", {})[i] = f"{accuracy} after {steps} steps"
    except Exception as e:  # noqa: BLE001 - reported, not raised: the benchmark's job is to say what happened
        outcome.setdefault("errors", []).append(f"fine-tuner {i}: {type(e).__name__}: {e}")


async def press_start(tab: StudentTab) -> PageRun:
    """Open the fine-tuning page (in English), press Start, and return the first poll of the job's status."""
    page = await tab.run("finetune", FINETUNE_QUERY)
    start_button = next(b for b in page.of_type("button") if b.label == FINETUNE_TEXT["start"]["en"])
    await tab.run("finetune", FINETUNE_QUERY, press=start_button.id)
    await asyncio.sleep(1.0)
    return await tab.run("finetune", FINETUNE_QUERY, fragment_id=tab.auto_rerun[1]) if tab.auto_rerun else page


async def abandon_training(port: int) -> None:
    async with StudentTab(port) as tab:
        await press_start(tab)


def model_floor(sessions: int, first: int = 1) -> dict[str, float]:
    """Seconds of model work the N students' pages ask for, one request after another: per page, the sum over
    students of that page's forward passes for the student's sentence (the same calls the page makes through
    ``app.core.models``, here on ``model.inference`` directly, so nothing is cached and no Streamlit runs)."""
    from model import inference  # torch's threads as in the server: app/ (imported above) set them
    from model.checkpoint import load

    bundle = load(next(MODELS_DIR.iterdir()) if MODELS_DIR is not None else "embedded")
    bundle.model.eval()
    pages = {  # what pages/fill_mask.py and pages/attention.py ask of the model on a first visit
        "fill_mask": lambda text: (
            inference.encode(bundle, text),
            inference.fill_mask(bundle, text, causal=False),
            inference.fill_mask(bundle, text, causal=True),
        ),
        "attention": lambda text: inference.attention_maps_both(bundle, text),  # both masks, one batch of two
    }
    for work in pages.values():  # warm up: the first pass of a process allocates
        work(sentence(0)[1])
    floor = {}
    for name, work in pages.items():
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(first, first + sessions):
            work(sentence(i)[1])
        floor[name] = time.perf_counter() - start
        floor[f"{name}_cpu"] = time.process_time() - cpu
    return floor


def p95(values: list[float]) -> float | None:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)] if values else None


def server_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds the server process has used so far, user and system (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def settled(pid: int, limit: float = 180) -> float:
    """Wait until the server has finished starting, as a class finds it: ``serve.py`` answers at once and warms
    up in a background thread (the model, the head lab's statistics in both languages), which would otherwise
    share the cores with the students. Done when a second passes with no more than 50 ms of its CPU; returns the
    seconds waited."""
    start = time.perf_counter()
    used = sum(server_cpu(pid))
    while time.perf_counter() - start < limit:
        time.sleep(1.0)
        used, before = sum(server_cpu(pid)), used
        if used - before <= 0.05:
            break
    return time.perf_counter() - start


def percentiles(values: list[float]) -> str:
    if not values:
        return "- | - | -"
    return f"{statistics.median(values):.2f} | {p95(values):.2f} | {max(values):.2f}"


class PeakMemory:
    """Samples the server's resident memory while a phase runs (VmHWM only ever grows, so it can't show a phase)."""

    def __init__(self, pid: int):
        self.pid, self.peak = pid, 0.0

    async def watch(self) -> None:
        while True:
            self.peak = max(self.peak, server_mb(self.pid))
            await asyncio.sleep(0.2)


async def phase(pid: int, *jobs) -> tuple[float, float]:
    """Run ``jobs`` together; returns (wall seconds, peak server MB during them)."""
    memory = PeakMemory(pid)
    watcher = asyncio.create_task(memory.watch())
    start = time.perf_counter()
    await asyncio.gather(*jobs)
    watcher.cancel()
    return time.perf_counter() - start, memory.peak


async def run(args) -> None:
    floor = model_floor(args.sessions) if 1 in args.phases else {}
    with running_server(max_trainings=args.max_trainings, session_ttl=args.session_ttl) as (port, server):
        await student(port, 0, {"fill_mask": [], "attention": []}, [])  # a teacher's first visit loads the model
        if not args.cold:
            print(f"server settled {settled(server.pid):.1f} s after the first visit")
        idle = server_mb(server.pid)
        print(f"server idle after the first visit: {idle:.0f} MB\n")

        errors: list[str] = []
        if 1 in args.phases:
            timings: dict[str, list[float]] = {"fill_mask": [], "attention": []}
            cpu_before = server_cpu(server.pid)
            wall, peak = await asyncio.wait_for(
                phase(server.pid, *(student(port, i, timings, errors) for i in range(1, args.sessions + 1))),
                args.timeout,
            )
            print(f"## {args.sessions} students at once: fill-mask, then attention (own sentence each)\n")
            print("| page | answered | p50 s | p95 s | max s |\n|---|---|---|---|---|")
            for name, values in timings.items():
                print(f"| {name} | {len(values)}/{args.sessions} | {percentiles(values)} |")
            user, system = (after - before for after, before in zip(server_cpu(server.pid), cpu_before))
            cpu = user + system
            print(
                f"\nwall {wall:.1f} s; server peak {peak:.0f} MB; server CPU {cpu:.1f} s ({system:.1f} s system); "
                f"errors: {errors or 'none'}"
            )
            print(
                f"floor (the same {args.sessions} requests' model work, one after another, no Streamlit): "
                f"fill-mask {floor['fill_mask']:.2f} s, attention {floor['attention']:.2f} s "
                f"({os.environ.get('OMP_NUM_THREADS')} torch thread(s), as the server); load average {os.getloadavg()[0]:.1f}\n"
            )
            summary = {
                "sessions": args.sessions,
                "fill_mask_p95": p95(timings["fill_mask"]),
                "attention_p95": p95(timings["attention"]),
                "fill_mask_floor": round(floor["fill_mask"], 3),
                "attention_floor": round(floor["attention"], 3),
                "server_peak_mb": round(peak),
                # Beside the wall-clock ratios, which a loaded machine skews: CPU seconds of the whole phase in the
                # server against those of the floor's model work (both pages).
                "server_cpu": cpu,
                "floor_cpu": floor["fill_mask_cpu"] + floor["attention_cpu"],
                "errors": len(errors),
            }
            print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in summary.items()}))

        if 2 in args.phases:
            outcome: dict = {}
            others: dict[str, list[float]] = {"fill_mask": [], "attention": []}
            other_errors: list[str] = []
            deadline = time.perf_counter() + args.timeout

            async def keep_using(i: int) -> None:  # ten students keep asking while the trainings run
                while (
                    time.perf_counter() < deadline
                    and len(outcome.get("finished", {})) + len(outcome.get("errors", [])) < 3
                ):
                    await student(port, 1000 + i * 100 + len(others["fill_mask"]), others, other_errors)
                    await asyncio.sleep(2)

            wall, peak = await phase(
                server.pid,
                *(fine_tuner(port, i, outcome, deadline) for i in range(3)),
                *(keep_using(i) for i in range(10)),
            )
            finished = outcome.get("finished", {})
            print(
                f"## 3 fine-tuning runs at once (limit {args.max_trainings}) while 10 students use fill-mask and attention\n"
            )
            print(
                f"finished {len(finished)}/3 after {', '.join(f'{v:.0f} s' for v in sorted(finished.values())) or '-'} "
                f"(held-out accuracy {', '.join(str(outcome.get('accuracy', {}).get(i)) for i in sorted(finished))}); "
                f"saw the queue message: {len(outcome.get('queued', ()))}; errors: {outcome.get('errors') or 'none'}\n"
            )
            print("| meanwhile | answered | p50 s | p95 s | max s |\n|---|---|---|---|---|")
            for name, values in others.items():
                print(f"| {name} | {len(values)} | {percentiles(values)} |")
            print(f"\nwall {wall:.0f} s; server peak {peak:.0f} MB; errors: {other_errors or 'none'}\n")

        if 3 in args.phases:
            before = server_mb(server.pid)
            samples = []
            for wave in range(args.waves):
                await asyncio.gather(
                    *(
                        student(port, 5000 + wave * 10 + i, {"fill_mask": [], "attention": []}, errors)
                        for i in range(10)
                    )
                )
                samples.append(server_mb(server.pid))
            print(f"## {args.waves * 10} sessions opened and closed, in waves of 10\n")
            print(
                f"server memory before {before:.0f} MB; after each wave: {', '.join(f'{m:.0f}' for m in samples)} MB; "
                f"errors: {errors or 'none'}"
            )

        if 4 in args.phases:
            before = server_mb(server.pid)
            await asyncio.gather(*(abandon_training(port) for _ in range(4)))
            await asyncio.sleep(3)
            during = server_mb(server.pid)
            await asyncio.sleep(args.session_ttl + 5)
            await student(port, 9000, {"fill_mask": [], "attention": []}, errors)  # a session event: expired ones go
            await asyncio.sleep(3)
            after = server_mb(server.pid)
            async with StudentTab(port) as tab:
                status = (await press_start(tab)).text()
            print(f"\n## 4 tabs start fine-tuning and close (session TTL {args.session_ttl} s)\n")
            print(
                f"server memory before {before:.0f} MB, with the 4 trainings {during:.0f} MB, after the TTL {after:.0f} MB; "
                f"a new Start afterwards {'QUEUED: slots were not freed' if QUEUED_TEXT in status else 'trained at once'}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--waves", type=int, default=10)
    parser.add_argument(
        "--cold", action="store_true", help="students arrive while the server still warms up (no wait for it)"
    )
    parser.add_argument("--max-trainings", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--session-ttl", type=int, default=20, help="seconds the server keeps a closed tab's session")
    parser.add_argument(
        "--phases",
        type=lambda text: {int(p) for p in text.split(",")},
        default={1, 2, 3, 4},
        help="which phases to run, e.g. 2,4 (default: all)",
    )
    parser.add_argument("--bert-base", action="store_true", help="students pick a random BERT-Base (classroom mode)")
    args = parser.parse_args()
    if args.bert_base:
        global MODELS_DIR
        MODELS_DIR = Path(tempfile.mkdtemp(prefix="bert-lab-models-"))
        print(f"wrote {write_bert_base(MODELS_DIR)}")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
