"""Fill-mask: the model's top-k guesses at every [MASK] of the session sentence, bidirectional beside causal;"""

from app.core.navigation import require_entry
from app.fill_mask import page

page.render(require_entry())
