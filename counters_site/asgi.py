"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from counters.web.asgi.asgi_handler import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.settings")

# Django must be set up before anything imports models or routing. Its handler runs each request's
# middleware and view in one thread hop (see the module).
django_asgi_app = get_asgi_application()

from counters.asgi import application_for  # noqa: E402

# Websockets, the site beacon, the stream reader and the live loop around Django (counters/asgi.py).
application = application_for(django_asgi_app)
