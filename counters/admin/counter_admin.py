"""Counters in the admin: view, reset (each confirmed on a page of its own), CSV export, badge counting."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone

from counters import selectors, services
from counters.admin.forms import (
    BadgeCountingForm,
    BulkResetForm,
    CounterAddForm,
    ResetForm,
    SelectedCountersForm,
)
from counters.admin.pages import AdminPages
from counters.admin.shown import sign_shown
from counters.admin.site_budget import tell_page_budget
from counters.domain.names import KINDS
from counters.domain.values import CounterState
from counters.exceptions import Conflict, InvalidInput, StoreUnavailable, UnknownCounter, VersionConflict
from counters.streams.status import stream_status
from counters.web.views.csv_export import csv_response

ADD_PERMISSION = "counters.add_counter"
RESET_PERMISSION = "counters.reset_counter"
CONFIGURE_PERMISSION = "counters.configure_counter"
EXPORT_COLUMNS = ["name", "kind", "title", "value", "version", "updated_at", "visitors_today", "bot_views"]
# Numbers a page counter has and a vote counter does not: left empty on a vote counter's row.
PAGE_ONLY_COLUMNS = frozenset({"visitors_today", "bot_views"})


def export_row(state: CounterState) -> list[object]:
    """One counter's row of the export (visitors today: the site's day, as on the dashboard)."""
    return [
        "" if column in PAGE_ONLY_COLUMNS and state.kind != "views" else getattr(state, column)
        for column in EXPORT_COLUMNS
    ]


def reset_done(state: CounterState, before: int, version: int) -> str:
    """What the admin is told after a reset applied."""
    return f"Reset {state.name} from {before} (version {version}) to 0; it is now at version {state.version}."


class CounterAdmin(AdminPages):
    """Every counter in DynamoDB, read through the selectors and reset through the services."""

    def pages(self) -> list:
        """List, add, detail and reset of one counter."""
        return [
            (path, "", self.list_view, "changelist"),
            (path, "add/", self.add_view, "add"),
            (path, "<str:name>/", self.detail_view, "change"),
            (path, "<str:name>/reset/", self.reset_view, "reset"),
            (path, "<str:name>/badge/", self.badge_view, "badge"),
        ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Whether the user may register page counters (vote counters come with their poll)."""
        return request.user.has_perm(ADD_PERMISSION)

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Counters are viewed and reset, never edited: the index offers "View", not "Change"."""
        return False

    @staticmethod
    def confirmed(request: HttpRequest) -> bool:
        """Whether the POST comes from a confirmation step (the confirmation page or a conflict's form)."""
        return request.POST.get("confirmed") == "1"

    def has_reset_permission(self, request: HttpRequest) -> bool:
        """Whether the user may reset counters."""
        return request.user.has_perm(RESET_PERMISSION)

    def has_configure_permission(self, request: HttpRequest) -> bool:
        """Whether the user may choose if a counter's badge counts views."""
        return request.user.has_perm(CONFIGURE_PERMISSION)

    def list_view(self, request: HttpRequest) -> HttpResponse:
        """GET: every counter, searchable and filtered by kind. POST: export or reset the selected ones."""
        self.require(self.has_view_permission(request))
        if request.method == "POST" and request.POST.get("action") == "export":
            return self.export_selected(request)
        if request.method == "POST":
            return self.bulk_reset(request)
        return self.render_list(request, BulkResetForm())

    def export_selected(self, request: HttpRequest) -> HttpResponse:
        """The selected counters' totals as they are now, as a CSV download."""
        form = SelectedCountersForm(request.POST)
        if not form.is_valid():
            return self.render_list(request, form, status=400)
        names = [name for name, _ in form.cleaned_data["selected"]]
        states = selectors.with_visitors_today(selectors.counter_states(names=names))
        stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
        return csv_response(f"counters-{stamp}.csv", EXPORT_COLUMNS, map(export_row, states))

    def render_list(
        self, request: HttpRequest, form: SelectedCountersForm, *, status: int = 200
    ) -> HttpResponse:
        query = request.GET.get("q", "")
        kind = request.GET.get("kind", "")
        kind = kind if kind in KINDS else ""
        counters = selectors.counter_search(query=query, kind=kind)
        tell_page_budget(request)
        rows = [(state, sign_shown(state.name, state.version)) for state in counters]
        return self.render(
            request,
            "counter_list.html",
            title="Counters",
            rows=rows,
            query=query,
            kind=kind,
            kinds=KINDS,
            form=form,
            can_reset=self.has_reset_permission(request),
            can_add=self.has_add_permission(request),
            stream=stream_status(),
            status=status,
        )

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        """Register a page counter; 409 if a counter of that name exists, 400 for a field unfit."""
        self.require(self.has_add_permission(request))
        form = CounterAddForm(request.POST if request.method == "POST" else None)
        status = 400 if form.is_bound else 200
        if form.is_valid():
            data = form.cleaned_data
            try:
                definition = services.counter_definition(
                    name=data["name"],
                    title=data["title"],
                    description=data["description"],
                    start=data["start"],
                )
                registered = services.counter_register(definition)
            except InvalidInput as exc:
                form.add_error(None, exc.detail)
            except Conflict as exc:
                form.add_error(None, exc.detail)
                status = 409
            else:
                if registered.created:
                    messages.success(request, f"Counter {definition.name} was registered.")
                    return self.detail_redirect(definition.name)
                form.add_error(
                    "name", f"A counter named {definition.name!r} exists already; pick another name."
                )
                status = 409
        return self.render(request, "counter_add.html", title="Add counter", form=form, status=status)

    def detail_redirect(self, name: str) -> HttpResponse:
        """To one counter's page."""
        return HttpResponseRedirect(
            reverse("admin:counters_counter_change", args=[name], current_app=self.admin_site.name)
        )

    def bulk_reset(self, request: HttpRequest) -> HttpResponse:
        """Reset each selected counter at the version the list showed of it, and report each."""
        self.require(self.has_reset_permission(request))
        form = BulkResetForm(request.POST)
        if not form.is_valid():
            return self.render_list(request, form, status=400)
        if not self.confirmed(request):
            return self.confirm_bulk(request, form)
        actor = request.user.get_username()
        for name, version in form.cleaned_data["selected"]:
            try:
                # Read at the expected version if the reset applies: versions only grow.
                before = selectors.counter_get(name=name).value
                state = services.counter_reset(
                    name=name, expected_version=version, actor=actor, reason=form.cleaned_data["reason"]
                )
            except VersionConflict as exc:
                messages.warning(request, f"Not reset: {exc.detail}")
            except (UnknownCounter, StoreUnavailable) as exc:
                messages.error(request, f"Not reset: {name}: {exc.detail}")
            else:
                messages.success(request, reset_done(state, before, version))
        return HttpResponseRedirect(request.get_full_path())

    def confirm_bulk(self, request: HttpRequest, form: BulkResetForm) -> HttpResponse:
        """Ask before a bulk reset: each selected counter, the version the list showed and its value now."""
        shown = dict(form.cleaned_data["selected"])
        current = {state.name: state for state in selectors.counter_search() if state.name in shown}
        rows = [(name, version, current.get(name)) for name, version in shown.items()]
        return self.render(
            request,
            "counter_reset_confirm.html",
            title=f"Reset {len(rows)} counter{'s' if len(rows) != 1 else ''} to 0?",
            rows=rows,
            tokens=request.POST.getlist("selected"),
            reason=form.cleaned_data["reason"],
            action=request.get_full_path(),
            cancel=request.get_full_path(),
        )

    def detail_view(self, request: HttpRequest, name: str) -> HttpResponse:
        """One counter, its reset form and its reset history."""
        self.require(self.has_view_permission(request))
        state = selectors.counter_get(name=name)
        form = ResetForm(initial={"shown": sign_shown(name, state.version)}, name=name)
        return self.render_detail(request, state, form)

    def render_detail(
        self,
        request: HttpRequest,
        state: CounterState,
        form: ResetForm,
        *,
        conflict: bool = False,
        status: int = 200,
    ) -> HttpResponse:
        return self.render(
            request,
            "counter_detail.html",
            title=f"Counter {state.name}",
            state=state,
            form=form,
            conflict=conflict,
            resets=selectors.counter_resets(name=state.name),
            can_reset=self.has_reset_permission(request),
            badge_form=BadgeCountingForm(initial={"badge_counts": state.badge_counts}),
            badge_url=request.build_absolute_uri(reverse("counters:badge", args=[state.name])),
            can_configure=self.has_configure_permission(request),
            status=status,
        )

    def badge_view(self, request: HttpRequest, name: str) -> HttpResponse:
        """Turn counting a view on each fetch of the counter's badge on or off."""
        detail_url = reverse("admin:counters_counter_change", args=[name], current_app=self.admin_site.name)
        if request.method != "POST":
            return HttpResponseRedirect(detail_url)
        self.require(self.has_configure_permission(request))
        form = BadgeCountingForm(request.POST)
        form.is_valid()  # a lone optional checkbox: always valid, absent means off
        state = services.badge_counting_set(name=name, enabled=form.cleaned_data["badge_counts"])
        done = "counts a view on each fetch" if state.badge_counts else "no longer counts views"
        messages.success(request, f"The badge of {state.name} {done}.")
        return HttpResponseRedirect(detail_url)

    def reset_view(self, request: HttpRequest, name: str) -> HttpResponse:
        """Reset one counter if it is still at the version the form carries; else show it as it is now."""
        detail_url = reverse("admin:counters_counter_change", args=[name], current_app=self.admin_site.name)
        if request.method != "POST":
            return HttpResponseRedirect(detail_url)
        self.require(self.has_reset_permission(request))
        form = ResetForm(request.POST, name=name)
        if not form.is_valid():
            return self.render_detail(request, selectors.counter_get(name=name), form, status=400)
        version = form.cleaned_data["shown"]
        reason = form.cleaned_data["reason"]
        if not self.confirmed(request):
            return self.render(
                request,
                "counter_reset_confirm.html",
                title=f"Reset {name} to 0?",
                rows=[(name, version, selectors.counter_get(name=name))],
                shown=request.POST.get("shown"),
                reason=reason,
                action=request.path,
                cancel=detail_url,
            )
        try:
            before = selectors.counter_get(name=name).value
            state = services.counter_reset(
                name=name, expected_version=version, actor=request.user.get_username(), reason=reason
            )
        except VersionConflict as exc:
            # Nothing was reset: show the counter as it is now and let the admin confirm at this version.
            # The page says so itself (#reset-conflict), so no message repeats it.
            current = exc.current or selectors.counter_get(name=name)
            fresh = ResetForm(
                initial={"shown": sign_shown(name, current.version), "reason": reason}, name=name
            )
            return self.render_detail(request, current, fresh, conflict=True, status=409)
        messages.success(request, reset_done(state, before, version))
        return HttpResponseRedirect(detail_url)
