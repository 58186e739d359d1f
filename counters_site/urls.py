"""Top-level URLs: the admin and the counters app."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("counters.urls")),
]

handler400 = "counters.errors.bad_request"
handler403 = "counters.errors.permission_denied"
handler404 = "counters.errors.not_found"
handler500 = "counters.errors.server_error"
