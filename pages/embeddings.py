"""输入表示: BERT's input is token + segment + position embeddings, added, then LayerNorm."""

from app.core.navigation import require_entry
from app.embeddings import page

page.render(require_entry())
