"""The layers lab: what each layer knows (linear probes, control task, expected layer) and how its vectors are"""

from app.core.navigation import require_entry
from app.layers import page

page.render(require_entry())
