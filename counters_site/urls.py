"""Top-level URLs: the admin and the counters app."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    # The app's routes first: its view beacon is the busiest request (none of them starts with admin/).
    path("", include("counters.urls")),
    path("admin/", admin.site.urls),
]

handler400 = "counters.web.errors.bad_request"
handler403 = "counters.web.errors.permission_denied"
handler404 = "counters.web.errors.not_found"
handler500 = "counters.web.errors.server_error"
