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
from counters.selectors import talks as talk_reads
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
            return redirect("counters:room", code=code_for(typed))
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
            context["talks"] = talk_reads.talk_list()
            context["closed"] = room_data.closed_now(context["polls"])
        except CounterError as exc:
            return respond_to_error(request, exc)
    return render(request, "counters/room_enter.html", context, status=status)


def code_for(typed: str) -> str:
    """The stored code of the poll or talk a typed join code names; UnknownCounter if neither."""
    try:
        return room_data.poll_for_code(typed).code
    except UnknownCounter:
        return room_data.talk_for_code(typed).code


def present_context(request: HttpRequest, poll) -> dict:
    """What present mode adds: the join address (the talk's, for a poll of a talk), its QR code, the polls
    before and after (in the talk's order), and whether the presenter's controls are offered (only to
    whoever may use them)."""
    talk = talk_reads.talk_of_poll(poll.id)
    previous, following = room_data.neighbours(poll, talk)
    address = join_address(request, talk.code if talk else poll.code)
    return {
        "talk": talk,
        "join_code": talk.code if talk else poll.code,
        "talk_open_url": reverse("counters:api-talk-open", args=[talk.id]) if talk else "",
        "address": address,
        "short_address": short_address(address),
        "enter_address": short_address(request.build_absolute_uri(reverse("counters:room-enter"))),
        "qr": qr_svg(address, label=f"QR code of {short_address(address)}"),
        "previous": previous,
        "following": following,
        "can_control": may_change_polls(request.user),
    }


def room_context(request: HttpRequest, poll, *, staff: bool) -> dict:
    """What a room page shows of a poll to this asker."""
    return {
        "room": room_data.room_view(poll, staff=staff, voter=voter_for(request)),
        "now": now_iso(),
        "presence": room_data.presence_name(poll),
        "urls": room_urls(poll.id),
    }


def show_room(request: HttpRequest, code: str, *, staff: bool) -> HttpResponse:
    """A poll's room page, found by its code in any case (redirected to the code in capitals); for the
    audience, a talk's code shows the poll its presenter has open now."""
    route, template = ("room-present", "room_present") if staff else ("room", "room")
    try:
        try:
            poll = room_data.poll_for_code(code)
        except UnknownCounter:
            return present_talk(code) if staff else show_talk(request, code)
        if code != poll.code:
            return redirect(f"counters:{route}", code=poll.code)  # one address per poll
        context = room_context(request, poll, staff=staff)
        if staff:
            context |= present_context(request, poll)
    except CounterError as exc:
        return respond_to_error(request, exc)
    return render(request, f"counters/{template}.html", context)


def present_talk(code: str) -> HttpResponse:
    """A talk's code in present mode: the poll open now (or its first) in present mode."""
    talk = room_data.talk_for_code(code)
    polls = talk_reads.talk_polls(talk)
    shown = next((poll for poll in polls if poll.id == talk.current), polls[0] if polls else None)
    if shown is None:
        return redirect("counters:talk", talk=talk.id)
    return redirect("counters:room-present", code=shown.code)


def show_talk(request: HttpRequest, code: str) -> HttpResponse:
    """A talk's audience page: the poll open now (or a wait for the first), following the presenter."""
    talk = room_data.talk_for_code(code)
    if code != talk.code:
        return redirect("counters:room", code=talk.code)
    follow = {"talk": talk, "follow_url": reverse("counters:api-talk", args=[talk.code])}
    polls = {poll.id: poll for poll in talk_reads.talk_polls(talk)}
    if talk.current not in polls:
        return render(request, "counters/talk_wait.html", follow)
    context = room_context(request, polls[talk.current], staff=False)
    return render(request, "counters/talk_room.html", context | follow)


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
