"""Guided lessons: start one; its card then leads through the pages step by step."""

from app.core.navigation import require_entry
from app.lessons import page

page.render(require_entry())
