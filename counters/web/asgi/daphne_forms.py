"""Under daphne, every POSTed form reaches Django, which answers a malformed one in the site's own shape.

Twisted's HTTP request, which daphne's extends, parses a POSTed multipart or urlencoded body itself
before daphne sees the request, into arguments daphne never reads. A multipart body it cannot parse
(no boundary, say) is answered there with an empty 400 and a closed connection, so the site's JSON
`{"error", "detail"}` never goes out. Twisted takes `parsePOSTFormSubmission=False` for exactly this;
daphne does not pass it, so this module does, once per process, when daphne serves it.
"""

from __future__ import annotations

import functools
import sys

DAPHNE_REQUESTS = "daphne.http_protocol"
MARK = "counters_leaves_forms_to_django"


def leave_forms_to_django() -> bool:
    """Make daphne's requests skip Twisted's form parse; whether daphne is loaded here (and so patched)."""
    module = sys.modules.get(DAPHNE_REQUESTS)
    if module is None:  # another server (or none): nothing parses ahead of Django
        return False
    request = module.WebRequest
    if getattr(request.__init__, MARK, False):
        return True
    original = request.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs) -> None:
        kwargs.setdefault("parsePOSTFormSubmission", False)
        original(self, *args, **kwargs)

    setattr(init, MARK, True)
    request.__init__ = init
    return True
