"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from counters.web.asgi.asgi_handler import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.settings")

# Django must be set up before anything imports models or routing. Its handler runs each request's
# middleware and view in one thread hop (see the module).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from counters.live.loop import BoundLoopMiddleware  # noqa: E402
from counters.routing import websocket_urlpatterns  # noqa: E402
from counters.streams.worker import StreamReaderMiddleware  # noqa: E402
from counters.web.asgi.site_beacon import SiteBeacon  # noqa: E402

# The outer middleware binds the server's event loop for the live push (counters/live/loop.py); the
# next starts this worker's reader of the table's stream unless COUNTERS_STREAM_READER is `off`; the
# site beacon (`POST /api/hit`, site.js) is answered before Django (counters/web/asgi/site_beacon.py).
application = BoundLoopMiddleware(
    StreamReaderMiddleware(
        ProtocolTypeRouter(
            {
                "http": SiteBeacon(django_asgi_app),
                "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
            }
        )
    )
)
