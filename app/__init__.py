"""What BERT Lab's pages share: cached models, session state, strings in two languages, chart builders."""

import os

# Every thread that runs torch gets its own OpenMP team, and in a Streamlit server the idle teams of the
# page threads spin on the cores that other pages and the fine-tuning processes need (a training step in a
# server thread runs several times slower than in a bare process). Passive waiting removes that. It must be set
# before torch is first imported: app/ is.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# One torch thread per page forward pass: a server runs one script thread per session, so a class's requests
# already fill the cores side by side, and a pass split over every core waits on its slowest thread whenever
# another session holds a core (bench/classroom_load.py; the fine-tuning processes set their own threads).
PAGE_THREADS = 1
os.environ.setdefault("OMP_NUM_THREADS", str(PAGE_THREADS))
