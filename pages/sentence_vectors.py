"""From BERT to sentence vectors: [CLS] and mean pooling, MiniLM, and contrastive training (issue #43)."""

from app.core.navigation import require_entry
from app.sentence_vectors import page

page.render(require_entry())
