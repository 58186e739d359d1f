"""Polls in the admin: list, create, add options, close and reopen, each a conditional write."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse

from counters import selectors, services
from counters.admin.forms import OptionForm, PollClosedForm, PollCreateForm
from counters.admin.pages import AdminPages
from counters.exceptions import Conflict, InvalidInput


class PollAdmin(AdminPages):
    """Every poll in DynamoDB, managed through the poll admin services."""

    def pages(self) -> list:
        """List, create, detail, add option, close or reopen."""
        return [
            (path, "", self.list_view, "changelist"),
            (path, "add/", self.add_view, "add"),
            (path, "<str:poll_id>/", self.detail_view, "change"),
            (path, "<str:poll_id>/options/", self.option_view, "add_option"),
            (path, "<str:poll_id>/closed/", self.closed_view, "closed"),
            (path, "<str:poll_id>/control/", self.control_view, "control"),
        ]

    def detail_url(self, poll_id: str) -> str:
        return reverse("admin:counters_poll_change", args=[poll_id], current_app=self.admin_site.name)

    def list_view(self, request: HttpRequest) -> HttpResponse:
        """Every poll with its options' totals."""
        self.require(self.has_view_permission(request))
        return self.render(
            request,
            "poll_list.html",
            title="Polls",
            polls=selectors.poll_list(),
            can_add=self.has_add_permission(request),
        )

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        """Create a poll with its options; refused if the poll or an option counter exists."""
        self.require(self.has_add_permission(request))
        form = PollCreateForm(request.POST if request.method == "POST" else None)
        status = 200
        if form.is_valid():
            data = form.cleaned_data
            try:
                poll = services.poll_create(
                    poll_id=data["poll_id"],
                    question=data["question"],
                    options=data["options"],
                    **form.settings(),
                )
            except (Conflict, InvalidInput) as exc:
                form.add_error(None, exc.detail)
            else:
                messages.success(request, f"Poll {poll.id} was created with {len(poll.options)} options.")
                return HttpResponseRedirect(self.detail_url(poll.id))
        if form.is_bound:
            status = 400 if form.errors else status
        return self.render(request, "poll_add.html", title="Add poll", form=form, status=status)

    def detail_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """One poll: options with totals, a form for one more option, close or reopen."""
        self.require(self.has_view_permission(request))
        return self.render_detail(request, poll_id, OptionForm())

    def render_detail(self, request: HttpRequest, poll_id: str, form: OptionForm, status: int = 200):
        poll = selectors.poll_totals(poll_id=poll_id)
        return self.render(
            request,
            "poll_detail.html",
            title=f"Poll {poll.id}",
            poll=poll,
            form=form,
            can_change=self.has_change_permission(request),
            status=status,
        )

    def option_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Add an option if its id is new in the poll."""
        if request.method != "POST":
            return HttpResponseRedirect(self.detail_url(poll_id))
        self.require(self.has_change_permission(request))
        form = OptionForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.poll_add_option(poll_id=poll_id, option_id=data["option_id"], label=data["label"])
            except (Conflict, InvalidInput) as exc:
                form.add_error(None, exc.detail)
            else:
                messages.success(request, f"Option {data['option_id']} was added to {poll_id}.")
                return HttpResponseRedirect(self.detail_url(poll_id))
        return self.render_detail(request, poll_id, form, status=409 if form.non_field_errors() else 400)

    def control_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Reveal or hide the poll's totals (the presenter's control), if they are not so already."""
        if request.method != "POST":
            return HttpResponseRedirect(self.detail_url(poll_id))
        self.require(self.has_change_permission(request))
        action = request.POST.get("action")
        if action not in ("reveal", "hide"):
            messages.error(request, "Say whether to reveal or hide the results.")
        else:
            try:
                services.poll_control(poll_id=poll_id, action=action)
            except Conflict as exc:
                messages.warning(request, exc.detail)
            else:
                messages.success(
                    request,
                    f"Poll {poll_id}'s results are now {action}{'ed' if action == 'reveal' else 'den'}.",
                )
        return HttpResponseRedirect(self.detail_url(poll_id))

    def closed_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Close the poll (it stops taking votes) or reopen it, if it is not so already."""
        if request.method != "POST":
            return HttpResponseRedirect(self.detail_url(poll_id))
        self.require(self.has_change_permission(request))
        form = PollClosedForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Say whether to close or reopen the poll.")
        else:
            closed = form.cleaned_data["closed"]
            try:
                services.poll_set_closed(poll_id=poll_id, closed=closed)
            except Conflict as exc:
                messages.warning(request, exc.detail)
            else:
                messages.success(request, f"Poll {poll_id} is now {'closed' if closed else 'open'}.")
        return HttpResponseRedirect(self.detail_url(poll_id))
