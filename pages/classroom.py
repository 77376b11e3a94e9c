"""Class mode: the teacher starts a class (a code, a QR code, the head count), students join and follow the"""

from app.classroom import page
from app.core.navigation import require_entry

page.render(require_entry())
