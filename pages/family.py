"""BERT's family: what SpanBERT, RoBERTa, ALBERT and DistilBERT changed, each run live against BERT's recipe."""

from app.core.navigation import require_entry
from app.family import page

page.render(require_entry())
