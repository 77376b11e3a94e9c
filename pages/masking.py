"""MLM masking lab: why BERT masks, how (15%; 80/10/10), and live seeded draws on the session sentence."""

from app.core.navigation import require_entry
from app.masking import page

page.render(require_entry())
