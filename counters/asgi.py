"""The app's ASGI application around a host project's Django: websockets, the site beacon, the live loop.

Import it after `get_asgi_application()` (as Channels asks of routing): the websocket consumers need
Django's apps loaded.
"""

from __future__ import annotations

from asgiref.typing import ASGIApplication
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from counters.live.loop import BoundLoopMiddleware
from counters.routing import websocket_urlpatterns
from counters.streams.worker import StreamReaderMiddleware
from counters.web.asgi.daphne_forms import leave_forms_to_django
from counters.web.asgi.site_beacon import SiteBeacon


def application_for(django_app: ASGIApplication) -> BoundLoopMiddleware:
    """Compose the ASGI application that serves `django_app` with the counters app's sockets and beacon."""
    # Under daphne, malformed forms reach Django and get its JSON 400 (web/asgi/daphne_forms.py).
    leave_forms_to_django()
    # Outermost, the server's event loop is bound for the live push (live/loop.py); next, this worker
    # reads the table's stream unless COUNTERS_STREAM_READER is `off` (streams/worker.py); the site
    # beacon (`POST /api/hit`, site.js) is answered before Django; websockets come only from the
    # hosts in ALLOWED_HOSTS.
    return BoundLoopMiddleware(
        StreamReaderMiddleware(
            ProtocolTypeRouter(
                {
                    "http": SiteBeacon(django_app),
                    "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
                }
            )
        )
    )
