"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.settings")
# Django must be set up before anything imports models or routing.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from counters.live.broadcast import BroadcastLoopMiddleware  # noqa: E402
from counters.routing import websocket_urlpatterns  # noqa: E402
from counters.web.request_threads import ReusedRequestThreads  # noqa: E402

# Each request's sync work runs on a reused thread, not a new one per request (see the module).
# The outer middleware hands the server's event loop to the broadcaster, which sends from it.
application = BroadcastLoopMiddleware(
    ProtocolTypeRouter(
        {
            "http": ReusedRequestThreads(django_asgi_app),
            "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
        }
    )
)
