"""Top-level URLs: the admin and the counters app."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    # The app's routes first: its view beacon is the busiest request (none of them starts with admin/).
    path("", include("counters.urls")),
    path("admin/", admin.site.urls),
]

handler400 = "counters.web.http.errors.bad_request"
handler403 = "counters.web.http.errors.permission_denied"
handler404 = "counters.web.http.errors.not_found"
handler500 = "counters.web.http.errors.server_error"
