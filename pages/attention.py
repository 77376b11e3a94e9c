"""BERT's bidirectional self-attention next to GPT's causal mask, on the same weights; what each head does."""

from app.attention import page
from app.core.navigation import require_entry

page.render(require_entry())
