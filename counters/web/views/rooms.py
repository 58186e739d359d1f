"""Room pages: `/p` (type a join code), `/p/<code>` (the audience's page), `/p/<code>/present` (staff)."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie

from counters import selectors
from counters.exceptions import CounterError, InvalidInput, UnknownCounter
from counters.permissions import may_change_polls
from counters.web.http.errors import respond_to_error
from counters.web.http.methods import allow_safe
from counters.web.http.voters import is_staff, voter_for
from counters.web.views import room_data
from counters.web.views.qr import qr_svg


def join_address(request: HttpRequest, code: str) -> str:
    """The audience page's full address, as a phone's camera or browser should open it."""
    return request.build_absolute_uri(reverse("counters:room", args=[code]))


def short_address(address: str) -> str:
    """An address without its scheme, as a presenter reads it out or a person types it."""
    return address.split("://", 1)[-1]


def room_urls(poll_id: str) -> dict[str, str]:
    """The API addresses a room page's script calls for this poll (its JSON, vote, control, CSV)."""
    routes = {"vote": "vote", "poll": "poll", "control": "poll-control", "csv": "poll-results-csv"}
    return {key: reverse(f"counters:api-{route}", args=[poll_id]) for key, route in routes.items()}


def now_iso() -> str:
    """The server's time, so a page's countdown follows the server's clock, not the phone's."""
    return selectors.now_utc().isoformat(timespec="milliseconds")


@allow_safe
def enter(request: HttpRequest) -> HttpResponse:
    """A box to type a join code; a known code goes to its poll's page."""
    typed = request.GET.get("code")
    error, status = "", 200
    if typed is not None:
        try:
            poll = room_data.poll_for_code(typed)
            return redirect("counters:room", code=poll.code)
        except InvalidInput:
            error = "A join code is 5 letters and digits, such as K7MPQ."
        except UnknownCounter:
            error, status = "No poll has this code. Check it with the presenter and try again.", 404
        except CounterError as exc:
            return respond_to_error(request, exc)
    context = {"typed": typed or "", "error": error, "alphabet_note": room_data.CODE_NOTE}
    # Staff find each poll's present mode here (the code is what the audience types).
    if is_staff(request):
        try:
            context["polls"] = room_data.polls_with_codes()
            context["closed"] = room_data.closed_now(context["polls"])
        except CounterError as exc:
            return respond_to_error(request, exc)
    return render(request, "counters/room_enter.html", context, status=status)


def present_context(request: HttpRequest, poll) -> dict:
    """What present mode adds: the join address, its QR code, the polls before and after, and whether the
    presenter's controls are offered (only to whoever may use them)."""
    previous, following = room_data.neighbours(poll)
    address = join_address(request, poll.code)
    return {
        "address": address,
        "short_address": short_address(address),
        "enter_address": short_address(request.build_absolute_uri(reverse("counters:room-enter"))),
        "qr": qr_svg(address, label=f"QR code of {short_address(address)}"),
        "previous": previous,
        "following": following,
        "can_control": may_change_polls(request.user),
    }


def show_room(request: HttpRequest, code: str, *, staff: bool) -> HttpResponse:
    """A poll's room page, found by its code in any case (redirected to the code in capitals)."""
    route, template = ("room-present", "room_present") if staff else ("room", "room")
    try:
        poll = room_data.poll_for_code(code)
        if code != poll.code:
            return redirect(f"counters:{route}", code=poll.code)  # one address per poll
        context = {
            "room": room_data.room_view(poll, staff=staff, voter=voter_for(request)),
            "now": now_iso(),
            "presence": room_data.presence_name(poll),
            "urls": room_urls(poll.id),
        }
        if staff:
            context |= present_context(request, poll)
    except CounterError as exc:
        return respond_to_error(request, exc)
    return render(request, f"counters/{template}.html", context)


@allow_safe
@ensure_csrf_cookie
def audience(request: HttpRequest, code: str) -> HttpResponse:
    """One poll for the audience: vote, and see totals only when the server says they are visible."""
    return show_room(request, code, staff=False)


@allow_safe
@ensure_csrf_cookie
@staff_member_required
def present(request: HttpRequest, code: str) -> HttpResponse:
    """A poll on the projector: join address, code and QR code, live bars, keyboard controls."""
    return show_room(request, code, staff=True)
