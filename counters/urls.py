"""URLs of the counters app: pages and the JSON API."""

from django.urls import path

from counters import api, views, vote_api

app_name = "counters"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("pages/<str:slug>/", views.page, name="page"),
    path("api/counters", api.counter_list, name="api-counters"),
    path("api/counters/<str:name>", api.counter_detail, name="api-counter"),
    path("api/counters/<str:name>/history", api.counter_history, name="api-counter-history"),
    path("api/views/<str:slug>", api.view_beacon, name="api-view"),
    path("api/polls", api.poll_list, name="api-polls"),
    path("api/polls/<str:poll>/vote", vote_api.vote, name="api-vote"),
]
