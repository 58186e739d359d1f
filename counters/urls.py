"""URLs of the counters app: pages and the JSON API."""

from django.urls import path
from django.views.generic import RedirectView

from counters.domain.names import DASHBOARD_COUNTER
from counters.web.http.methods import allow_safe
from counters.web.views import (
    api,
    badges,
    csv_api,
    health,
    pages,
    poll_api,
    rooms,
    site_api,
    site_page,
    talks,
    vote_api,
)

app_name = "counters"
TO_DASHBOARD = allow_safe(RedirectView.as_view(pattern_name="counters:dashboard"))

urlpatterns = [
    # First: the beacon is the busiest route, and Django tries the patterns in order.
    path("api/views/<str:slug>", api.view_beacon, name="api-view"),
    path("", pages.dashboard, name="dashboard"),
    # The dashboard counts its own views at `/`; its counter has no demo page of its own.
    path(f"pages/{DASHBOARD_COUNTER}/", TO_DASHBOARD),
    path("pages/<str:slug>/", pages.page, name="page"),
    path("api/counters", api.counter_list, name="api-counters"),
    path("api/pages.csv", csv_api.pages_csv, name="api-pages-csv"),
    path("api/counters/<str:name>", api.counter_detail, name="api-counter"),
    path("api/counters/<str:name>/history", api.counter_history, name="api-counter-history"),
    path("api/counters/<str:name>/history.csv", csv_api.counter_history_csv, name="api-counter-history-csv"),
    path("api/overview", api.overview, name="api-overview"),
    path("api/sparklines", api.sparklines, name="api-sparklines"),
    path("api/polls", poll_api.poll_list, name="api-polls"),
    path("api/polls/<str:poll>", poll_api.poll_detail, name="api-poll"),
    path("api/polls/<str:poll>/control", poll_api.poll_control, name="api-poll-control"),
    path("api/polls/<str:poll>/vote", vote_api.vote, name="api-vote"),
    path("api/polls/<str:poll>/results.csv", csv_api.poll_results_csv, name="api-poll-results-csv"),
    path("badge/<str:name>.svg", badges.badge, name="badge"),
]
# The whole site (docs/whole-site.md): its numbers, sources, and each page's own view.
urlpatterns += [
    path("api/site", site_api.site_summary, name="api-site"),
    path("api/site/history", site_api.site_history, name="api-site-history"),
    path("api/site/sources.csv", site_api.site_sources_csv, name="api-site-sources-csv"),
    path("api/counters/<str:name>/sources", site_api.counter_sources, name="api-counter-sources"),
    path("api/counters/<str:name>/sources.csv", site_api.counter_sources_csv, name="api-counter-sources-csv"),
    # Every page, paged: the dashboard's table shows the busiest; never counted (docs/whole-site.md).
    path("site/pages/", pages.all_pages, name="all-pages"),
    path("site/pages/<str:name>/", site_page.page_view, name="site-page"),
]
# Rooms (docs/rooms.md): a poll's join address for the audience, and its present mode for staff.
urlpatterns += [
    path("p", rooms.enter, name="room-enter"),
    # Talks (a presenter's polls in order): before `p/<code>`, which no code "talks" can match (no L).
    path("p/talks", talks.talk_list, name="talks"),
    path("p/talks/<str:talk>", talks.talk_detail, name="talk"),
    path("api/talks/<str:code>", talks.talk_now, name="api-talk"),
    path("api/talks/<str:talk>/open", talks.talk_open, name="api-talk-open"),
    path("p/<str:code>", rooms.audience, name="room"),
    path("p/<str:code>/present", rooms.present, name="room-present"),
]
# For load balancers and Prometheus (docs/operations.md): never counted, never setting a cookie.
urlpatterns += [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", health.prometheus, name="metrics"),
]
