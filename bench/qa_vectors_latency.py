"""What one user waits for in Chromium on the two newest views: asking the fine-tuning lab's question-answering
reader, and searching the sentence-vectors page's pool.

1. Sentence vectors: the shared sentence edited (Ctrl+Enter) until the nearest-neighbour tables show it again.
2. Question answering: a short Chinese run (100 questions, stopped after its first steps, as a class would try it),
   then a held-out question picked (the answer marked again), and the question box edited.

Each action reports the time until its result is shown and the server's CPU time for it. The server has finished
warming up first (as a class finds it), and each page's first visit is not timed.

    .venv/bin/python bench/qa_vectors_latency.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from browser_latency import CHROMIUM, cpu_seconds, wait_drawn
from classroom_load import ROOT, free_port, settled, start_server

sys.path.insert(0, str(ROOT))
from app.core.i18n import strings_of  # noqa: E402

FINETUNE = strings_of("finetune")


SENTENCES = (
    "My sister bakes bread every Sunday morning.",
    "我妹妹每个星期天早上都烤面包。",
    "The train to the coast leaves at noon.",
    "他每天骑自行车去上班。",
)
MARKED = "figure.bert-lab-figure .passage mark"


# Counts the script runs that end, from the page's own state attribute: an action is shown once a run that started
# after it has ended and every chart has drawn (waiting for "running" itself can miss a run quicker than the poll).
COUNT_RUNS = """
window.__runs = 0;
new MutationObserver(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (app && !window.__watched) {
    window.__watched = true;
    let running = false;
    new MutationObserver(() => {
      const state = app.getAttribute('data-test-script-state');
      if (state === 'running') running = true;
      else if (running && state === 'notRunning') { running = false; window.__runs += 1; }
    }).observe(app, {attributes: true});
  }
}).observe(document, {subtree: true, childList: true});
"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port)
    rows: list[tuple[str, float, float]] = []
    try:
        settled(server.pid)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(COUNT_RUNS)
            page = context.new_page()
            page.set_default_timeout(120_000)

            def timed(name: str, act) -> None:
                page.wait_for_timeout(1000)
                cpu, runs = cpu_seconds(server.pid), page.evaluate("window.__runs")
                start = page.evaluate("performance.now()")
                act()
                page.wait_for_function("(n) => window.__runs > n", arg=runs)
                wait_drawn(page)
                shown = (page.evaluate("performance.now()") - start) / 1000
                rows.append((name, shown, cpu_seconds(server.pid) - cpu))

            # 1. Sentence vectors
            page.goto(f"{url}/sentence_vectors?lang=en")
            wait_drawn(page)
            box = page.locator('[data-testid="stSidebar"] textarea').first
            for i in range(args.repeats):
                box.fill(SENTENCES[i % len(SENTENCES)])
                timed("sentence vectors: a new sentence, its neighbours shown", lambda: box.press("Control+Enter"))

            # 2. Question answering
            page.goto(f"{url}/finetune?lang=zh&finetune_task=qa-zh&finetune_size=100&finetune_budget=30")
            wait_drawn(page)
            page.get_by_role("button", name=FINETUNE["start"]["zh"]).click()
            page.get_by_text(FINETUNE["loss"]["zh"]).first.wait_for()
            page.get_by_role("button", name=FINETUNE["stop"]["zh"]).click()
            page.locator(MARKED).first.wait_for()
            wait_drawn(page)
            for i in range(args.repeats):

                def pick(i=i):
                    page.get_by_role("combobox", name=FINETUNE["qa_pick"]["zh"]).click()
                    page.keyboard.press("ArrowDown")  # opens the list
                    page.get_by_role("option").nth(i + 1).click()

                timed("question answering: a held-out question picked, its answer marked", pick)
            question = page.get_by_label(FINETUNE["qa_question"]["zh"], exact=True).and_(
                page.get_by_test_id("stTextInputField")
            )
            for i in range(args.repeats):
                question.fill(f"谁在{('上海', '广州', '天津', '深圳')[i % 4]}考察企业？")
                timed("question answering: the question edited, the answer marked", lambda: question.press("Enter"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{'action':66s} {'shown (s)':>10s} {'server CPU (s)':>15s}")
    by_kind: dict[str, list] = {}
    for name, shown, cpu in rows:
        by_kind.setdefault(name, []).append((shown, cpu))
    for name, values in by_kind.items():
        shown = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(f"{name:66s} {shown:>10.2f} {cpu:>15.2f}   (median of {len(values)}, slowest {max(values)[0]:.2f})")


if __name__ == "__main__":
    main()
