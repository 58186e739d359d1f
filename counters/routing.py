"""Websocket routes of the counters app."""

from channels.auth import AuthMiddlewareStack
from django.urls import path

from counters.live.consumers import DashboardConsumer

# The session's user tells a staff socket (every poll total) from an audience one (live/audience.py).
websocket_urlpatterns = [path("ws/counters/", AuthMiddlewareStack(DashboardConsumer.as_asgi()))]
