"""NSP lab: does sentence B follow sentence A? (Devlin et al. 2019, section 3.1, "Task #2")"""

from app.core.navigation import require_entry
from app.nsp import page

page.render(require_entry())
