"""What BERT Lab's pages share: cached models, session state, strings in two languages, chart builders."""

import os

# Every thread that runs torch gets its own OpenMP team, and in a Streamlit server the idle teams of the
# page threads spin on the cores that other pages and the fine-tuning processes need (a training step in a
# server thread runs several times slower than in a bare process). Passive waiting removes that. It must be set
# before torch is first imported: app/ is.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
