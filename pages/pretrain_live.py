"""Watch BERT learn: a tiny BERT pre-trained from scratch while the student watches (issue #19), and the"""

from app.core.navigation import require_entry
from app.pretrain_live import page

page.render(require_entry())
