"""Websocket routes of the counters app."""

from django.urls import path

from counters.live.consumers import DashboardConsumer

websocket_urlpatterns = [path("ws/counters/", DashboardConsumer.as_asgi())]
