"""GPT versus BERT: the two compared (Devlin et al. 2019, appendix A.4), then one model read both ways, live."""

from app.core.navigation import require_entry
from app.gpt_vs_bert import page

page.render(require_entry())
