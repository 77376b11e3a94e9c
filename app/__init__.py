"""What BERT Lab's pages share: cached models, session state, strings in two languages, chart builders."""

import os
import sys

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

# Every torch op a forward pass calls lets go of the GIL and must take it back; while other sessions' scripts
# run Python, each take-back waits for the holder's switch interval (5 ms by default), a few hundred times per
# pass. With four busy Python threads beside it, one attention pass of the embedded model took 757 ms at 5 ms
# and 226 ms at 1 ms (32 ms alone): the model work of a class queued behind the other pages' Python.
GIL_SWITCH_SECONDS = 0.001
sys.setswitchinterval(GIL_SWITCH_SECONDS)
