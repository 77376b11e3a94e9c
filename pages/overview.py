"""Overview (Devlin et al. 2019, sections 3–4): the pre-training → fine-tuning paradigm, sizes, results, legacy."""

from app.core.navigation import require_entry
from app.overview import page

page.render(require_entry())
