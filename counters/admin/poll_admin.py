"""Polls in the admin: create, add options, close, reopen, reveal, reset and delete, each conditional."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse

from counters import selectors, services
from counters.admin.forms import (
    OptionForm,
    PollClosedForm,
    PollCreateForm,
    PollEditForm,
    PollListedForm,
    ResetForm,
)
from counters.admin.pages import AdminPages
from counters.admin.shown import sign_shown
from counters.exceptions import Conflict, InvalidInput, VersionConflict
from counters.permissions import may_change_polls


def shown_key(poll_id: str) -> str:
    """What the signed version token of a poll's page names (apart from any counter's)."""
    return f"poll:{poll_id}"


def poll_change(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that changes a poll: a POST by a user who may change polls; anything else goes to its page."""

    @functools.wraps(view)
    def checked(self: PollAdmin, request: HttpRequest, poll_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseRedirect(self.detail_url(poll_id))
        self.require(self.has_change_permission(request))
        return view(self, request, poll_id)

    return checked


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
            (path, "<str:poll_id>/dashboard/", self.listed_view, "listed"),
            (path, "<str:poll_id>/reset/", self.reset_view, "reset"),
            (path, "<str:poll_id>/delete/", self.delete_view, "delete"),
            (path, "<str:poll_id>/edit/", self.edit_view, "edit"),
        ]

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Who may change polls here is who may control them anywhere (counters/permissions.py)."""
        return may_change_polls(request.user)

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
                    unlisted=not data.get("dashboard"),
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
            shown=sign_shown(shown_key(poll.id), poll.poll.version),
            can_change=self.has_change_permission(request),
            status=status,
        )

    @poll_change
    def option_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Add an option if its id is new in the poll."""
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

    @poll_change
    def control_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Reveal or hide the poll's totals (the presenter's control), if they are not so already."""
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

    def audited_change(self, request: HttpRequest, poll_id: str, change) -> str | None:
        """Run a reset or deletion at the version the page showed; the warning to show, or None if done."""
        form = ResetForm(request.POST, name=shown_key(poll_id))
        if not form.is_valid():
            return "Give a reason (it is kept in the audit record) and use the page's own form."
        try:
            change(
                poll_id=poll_id,
                expected_version=form.cleaned_data["shown"],
                actor=request.user.get_username(),
                reason=form.cleaned_data["reason"],
            )
        except VersionConflict as exc:
            return f"Nothing was changed: {exc.detail}"
        return None

    @poll_change
    def reset_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Zero the poll's votes at the version the page showed, audited."""
        warning = self.audited_change(request, poll_id, services.poll_reset)
        if warning:
            messages.warning(request, warning)
        else:
            messages.success(request, f"Poll {poll_id}'s votes were reset.")
        return HttpResponseRedirect(self.detail_url(poll_id))

    @poll_change
    def edit_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """New question and labels at the version the page showed, until the first vote."""
        form = PollEditForm(request.POST, name=shown_key(poll_id))
        if not form.is_valid():
            messages.error(request, "Give the question and a label for each option.")
            return HttpResponseRedirect(self.detail_url(poll_id))
        labels = {
            key.removeprefix("label-"): value
            for key, value in request.POST.items()
            if key.startswith("label-")
        }
        try:
            services.poll_edit(
                poll_id=poll_id,
                expected_version=form.cleaned_data["shown"],
                question=form.cleaned_data["question"],
                labels=labels,
            )
        except (Conflict, InvalidInput) as exc:
            messages.warning(request, f"Nothing was changed: {exc.detail}")
        else:
            messages.success(request, f"Poll {poll_id} was edited.")
        return HttpResponseRedirect(self.detail_url(poll_id))

    @poll_change
    def delete_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Remove the poll at the version the page showed, audited."""
        warning = self.audited_change(request, poll_id, services.poll_delete)
        if warning:
            messages.warning(request, warning)
            return HttpResponseRedirect(self.detail_url(poll_id))
        messages.success(request, f"Poll {poll_id} was deleted.")
        return HttpResponseRedirect(
            reverse("admin:counters_poll_changelist", current_app=self.admin_site.name)
        )

    def flip(self, request: HttpRequest, poll_id: str, form, change, said: tuple[str, str], ask: str):
        """Set one yes-or-no setting the form names, if it is not so already; `said`: how it reads off, on."""
        if not form.is_valid():
            messages.error(request, ask)
        else:
            [(name, on)] = form.cleaned_data.items()
            try:
                change(poll_id=poll_id, **{name: on})
            except Conflict as exc:
                messages.warning(request, exc.detail)
            else:
                messages.success(request, f"Poll {poll_id} is now {said[on]}.")
        return HttpResponseRedirect(self.detail_url(poll_id))

    @poll_change
    def closed_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Close the poll (it stops taking votes) or reopen it, if it is not so already."""
        form = PollClosedForm(request.POST)
        ask = "Say whether to close or reopen the poll."
        return self.flip(request, poll_id, form, services.poll_set_closed, ("open", "closed"), ask)

    @poll_change
    def listed_view(self, request: HttpRequest, poll_id: str) -> HttpResponse:
        """Show the poll on the public dashboard or keep it to its own pages, if it is not so already."""
        form = PollListedForm(request.POST)
        ask = "Say whether to show the poll on the dashboard or take it off."
        said = ("on the public dashboard", "off the public dashboard")
        return self.flip(request, poll_id, form, services.poll_set_unlisted, said, ask)
