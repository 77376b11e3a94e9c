"""The head lab: what each attention head does across many sentences, and what breaks when it is switched off."""

from app.core.navigation import require_entry
from app.heads import page

page.render(require_entry())
