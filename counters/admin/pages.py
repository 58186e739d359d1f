"""Admin pages without an ORM model: custom views on a ModelAdmin of an unmanaged permission holder."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from counters.exceptions import InvalidInput, StoreUnavailable, UnknownCounter
from counters.web.http.errors import answer_for


class AdminPages(admin.ModelAdmin):
    """Base of the counters and polls admins: shared context, permission checks and store errors."""

    def get_urls(self) -> list:
        """Only the views the subclass lists, each behind the admin's login, staff and CSRF checks."""
        wrap = self.admin_site.admin_view
        return [
            pattern(route, wrap(self.guarded(view)), name=f"counters_{self.opts.model_name}_{suffix}")
            for pattern, route, view, suffix in self.pages()
        ]

    def pages(self) -> list[tuple[Callable, str, Callable, str]]:
        """(path function, route, view, url name suffix) of every page."""
        raise NotImplementedError

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Nothing is deleted from the admin."""
        return False

    def render(
        self, request: HttpRequest, template: str, *, title: str, status: int = 200, **context
    ) -> TemplateResponse:
        """Render an admin page with the site's context."""
        return TemplateResponse(
            request,
            f"admin/counters/{template}",
            {**self.admin_site.each_context(request), "opts": self.opts, "title": title, **context},
            status=status,
        )

    @staticmethod
    def require(allowed: bool) -> None:
        """Refuse with 403 unless `allowed`."""
        if not allowed:
            raise PermissionDenied

    def guarded(self, view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        """Unknown names are a 404; a store outage is a readable 503 page, never a traceback."""

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except (UnknownCounter, InvalidInput) as exc:
                raise Http404(exc.detail) from exc
            except StoreUnavailable as exc:
                # The admin's own look, with the status and title every other page gives this error.
                answer = answer_for(exc)
                return self.render(
                    request, "unavailable.html", title=answer.title, detail=exc.detail, status=answer.status
                )

        return wrapped
