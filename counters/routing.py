"""Websocket routes of the counters app."""

from django.urls import path

from counters.live.consumers import DashboardConsumer
from counters.live.socket_session import user_of_session

# The session's user tells a staff socket (every poll total) from an audience one (live/audience.py).
websocket_urlpatterns = [path("ws/counters/", user_of_session(DashboardConsumer.as_asgi()))]
