"""Fine-tuning lab: the "small step" of pre-train + fine-tune (Devlin et al. 2019, section 3.2): add a head, train on a little"""

from app.core.navigation import require_entry
from app.finetune import page

page.render(require_entry())
