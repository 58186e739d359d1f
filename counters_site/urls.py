"""Top-level URLs: the admin and the counters app."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("counters.urls")),
]

handler400 = "counters.web.errors.bad_request"
handler403 = "counters.web.errors.permission_denied"
handler404 = "counters.web.errors.not_found"
handler500 = "counters.web.errors.server_error"
