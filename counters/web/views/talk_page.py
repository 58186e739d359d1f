"""The talk page's parts: what it shows of a talk, and the one change each of its forms asks for."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from counters.domain.values import PollDefinition, Talk
from counters.exceptions import InvalidInput
from counters.runtime import runtime
from counters.selectors import talks as talk_reads
from counters.services import talks as talk_writes
from counters.web.views.rooms import join_address, short_address

DRAFT_FIELDS = ("question", "options", "kind", "results", "minutes", "closes_at")
EMPTY_FORM = {"kind": "single", "results": "always"}
KINDS = (("single", "Single choice"), ("multi", "Multiple choice"), ("rating", "Rating 1 to 5"))
RESULTS = (
    ("always", "Always shown"),
    ("voted", "Shown once a phone has voted"),
    ("closed", "Shown when the poll closes"),
    ("revealed", "Shown when I reveal them (R)"),
)
RESULT_WORDS = dict(RESULTS)
KIND_WORDS = dict(KINDS)


@dataclass(frozen=True)
class TalkRow:
    """One poll of the talk as the page lists it."""

    poll: PollDefinition
    number: int
    minutes: int | None
    is_open: bool  # the poll phones on the talk's code see now

    @property
    def summary(self) -> str:
        """Kind, results rule and closing, in words."""
        parts = [KIND_WORDS.get(self.poll.kind, self.poll.kind), RESULT_WORDS.get(self.poll.results, "")]
        if self.minutes:
            parts.append(f"closes {self.minutes} min after it opens")
        return " · ".join(part for part in parts if part)


def context(request: HttpRequest, talk_id: str) -> dict:
    """Everything the talk page shows."""
    talk = talk_reads.talk_get(talk_id)
    minutes = {entry.poll: entry.minutes for entry in talk.polls}
    polls = talk_reads.talk_polls(talk)
    rows = [
        TalkRow(poll=poll, number=n, minutes=minutes.get(poll.id), is_open=poll.id == talk.current)
        for n, poll in enumerate(polls, 1)
    ]
    address = join_address(request, talk.code)
    open_row = next((row for row in rows if row.is_open), None)
    return {
        "talk": talk,
        "rows": rows,
        "open_row": open_row,
        "address": address,
        "short_address": short_address(address),
        "kinds": KINDS,
        "results": RESULTS,
        "zone": runtime().clock.zone_name,
        "moved": request.GET.get("moved", ""),
        "direction": request.GET.get("direction", ""),
        "done": request.GET.get("done", ""),
    }


def version_of(request: HttpRequest) -> int:
    """The talk's version the page was drawn at."""
    try:
        return int(request.POST.get("version", ""))
    except ValueError as exc:
        raise InvalidInput("The page lost the talk's version; load it again.") from exc


def back(talk: Talk, **query: str) -> HttpResponse:
    """To the talk page again, saying what was done (a moved poll keeps the keyboard's place)."""
    address = reverse("counters:talk", args=[talk.id])
    shown = "&".join(f"{key}={value}" for key, value in query.items() if value)
    return redirect(f"{address}?{shown}" if shown else address)


def to_present(poll_id: str) -> HttpResponse:
    """To present mode of the poll just opened."""
    poll = talk_reads.poll_get(poll_id)
    return redirect("counters:room-present", code=poll.code)


def apply(request: HttpRequest, talk_id: str) -> HttpResponse:
    """Make the change one form asks for; InvalidInput or VersionConflict (nothing changed) if it can't."""
    action, poll = request.POST.get("action", ""), request.POST.get("poll", "")
    if action == "duplicate-talk":
        return back(talk_writes.talk_duplicate(talk_id=talk_id), done="duplicated-talk")
    if action == "open":
        talk_writes.talk_open(talk_id=talk_id, poll_id=poll)
        return to_present(poll)
    if action == "open-next":
        talk, opened = talk_writes.talk_open_next(talk_id=talk_id)
        return to_present(opened) if opened else back(talk, done="last")
    at = {"talk_id": talk_id, "expected_version": version_of(request)}
    if action == "add":
        draft = talk_writes.PollDraft(**{key: request.POST.get(key, "") for key in DRAFT_FIELDS})
        return back(talk_writes.talk_add_poll(**at, draft=draft), done="added")
    if action == "move":
        direction = request.POST.get("direction", "")
        moved = talk_writes.talk_move(**at, poll_id=poll, direction=direction)
        return back(moved, moved=poll, direction=direction)
    if action == "order":
        order = request.POST.get("order", "").split()
        return back(talk_writes.talk_reorder(**at, order=order), done="moved")
    if action == "duplicate":
        return back(talk_writes.talk_duplicate_poll(**at, poll_id=poll), done="duplicated")
    raise InvalidInput("Say what to do: add, move, order, duplicate, duplicate-talk, open or open-next.")
