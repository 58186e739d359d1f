"""counters/asgi.py: one call serves a host project's Django with the app's site beacon and websocket."""

from __future__ import annotations

import pytest
from channels.testing import HttpCommunicator, WebsocketCommunicator

from counters.asgi import application_for

DOCS = "https://docs.example.com"


async def host_django(scope, receive, send):
    """The host project's Django: every request that is not the app's own edge comes here."""
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"host"})


@pytest.fixture
def application(settings, memory_store):
    settings.COUNTERS_SITE_ORIGINS = [DOCS]
    return application_for(host_django)


async def test_the_site_beacon_is_answered_before_django(application):
    preflight = HttpCommunicator(application, "OPTIONS", "/api/hit", headers=[(b"origin", DOCS.encode())])
    response = await preflight.get_response()
    assert response["status"] == 204
    assert (b"access-control-allow-origin", DOCS.encode()) in response["headers"]


async def test_every_other_request_reaches_the_hosts_django(application):
    response = await HttpCommunicator(application, "GET", "/api/counters").get_response()
    assert (response["status"], response["body"]) == (299, b"host")


@pytest.mark.parametrize(("origin", "opens"), [("http://127.0.0.1", True), ("https://evil.example", False)])
async def test_the_websocket_opens_only_from_allowed_hosts(application, origin, opens):
    socket = WebsocketCommunicator(application, "/ws/counters/", headers=[(b"origin", origin.encode())])
    connected, _ = await socket.connect()
    await socket.disconnect()
    assert connected is opens
