"""The site's URLs plus the uncounted twin of the demo page, served only under bench.settings."""

from django.urls import include, path

from bench import views

urlpatterns = [
    path("bench/uncounted/<str:slug>/", views.uncounted_page, name="bench-uncounted-page"),
    path("", include("counters_site.urls")),
]
