"""Jepsen-style load for crash tests: writers and voters that record every answer, and the checks on them.

Each writer is a browser-like client (its own CSRF cookie, and voter cookie for votes) sending one
request at a time. An answer is one of: acknowledged (200), refused (503 `store_unavailable`: nothing
was written) or unknown (503 `outcome_unknown`, a cut connection, a timeout: counted once or not at
all). Whatever the fault, a view total must then have grown by at least the acknowledged and at most
the acknowledged plus the unknown; a voter resends an unanswered vote with its Idempotency-Key until
it is acknowledged, so a poll ends holding exactly each voter's last acknowledged choice. Cookieless
clients (an API client keeping no cookies) send every vote, and every resend of it, without a voter
cookie: each key must count once, for the voter the acknowledged answer names in its cookie. Each
acknowledged vote is looked up afterwards by its idempotency record, written in the vote's own
transaction: the record is there exactly when the vote is.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import requests

from counters import conf
from tests.support.reliability import Outcomes, beacon, csrf_session
from tests.support.timing import wait_until
from tests.support.voting import HttpVoter

WRITERS = 8
PAUSE_AFTER_FAILURE = 0.05  # a writer facing a closed port does not spin
RESEND_PAUSE = 0.2
DEADLINE = 40  # seconds a phase may take before the test gives up on it
T = TypeVar("T")


@dataclass
class Timeline:
    """Outcomes with the time each acknowledged request was sent, to see when the site came back."""

    outcomes: Outcomes = field(default_factory=Outcomes)
    acknowledged_sent_at: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, response: requests.Response | None, sent_at: float) -> None:
        """Record one answer; None is a request without an answer (connection refused, cut, timed out)."""
        with self.lock:
            if response is None:
                self.outcomes.unknown += 1
                return
            self.outcomes.add(response)
            if response.status_code == 200:
                self.acknowledged_sent_at.append(sent_at)

    def acknowledged(self) -> int:
        with self.lock:
            return self.outcomes.acknowledged

    def failed(self) -> int:
        with self.lock:
            return self.outcomes.refused + self.outcomes.unknown

    def first_acknowledged_sent_after(self, moment: float) -> float | None:
        """When the first request sent after `moment` that was acknowledged was sent."""
        with self.lock:
            return min((at for at in self.acknowledged_sent_at if at > moment), default=None)


class Load:
    """WRITERS client threads, each running `_client(index)` until stopped, sharing one timeline."""

    def __init__(self) -> None:
        self.timeline = Timeline()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(WRITERS)]

    def _client(self, index: int) -> None:
        raise NotImplementedError

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=2 * DEADLINE)

    def around(self, fault: Callable[[], T], *, before: int, after: int) -> T:
        """Wait for `before` acknowledged writes, cause `fault`, see writes fail, wait for `after` more."""
        timeline = self.timeline
        wait_until(lambda: timeline.acknowledged() >= before, "writes before the fault", timeout=DEADLINE)
        caused = fault()
        wait_until(lambda: timeline.failed() > 0, "writes failing during the fault", timeout=DEADLINE)
        acknowledged = timeline.acknowledged()
        wait_until(lambda: timeline.acknowledged() >= acknowledged + after, "writes after", timeout=DEADLINE)
        return caused


class BeaconLoad(Load):
    """Clients posting view beacons of one page in a loop until stopped."""

    def __init__(self, url: str, slug: str) -> None:
        self.url, self.slug = url, slug
        self.sessions = [csrf_session(url) for _ in range(WRITERS)]
        super().__init__()

    def _client(self, index: int) -> None:
        session = self.sessions[index]
        while not self.stopping.is_set():
            sent_at = time.monotonic()
            try:
                response = beacon(session, self.url, self.slug)
            except requests.RequestException:
                response = None
            self.timeline.add(response, sent_at)
            if response is None or response.status_code != 200:
                time.sleep(PAUSE_AFTER_FAILURE)

    def assert_counted_between(self, gained: int) -> None:
        """Acknowledged <= counted <= acknowledged + unknown (<= attempted), with no other answer."""
        outcomes = self.timeline.outcomes
        attempted = outcomes.acknowledged + outcomes.refused + outcomes.unknown
        print(f"{outcomes}; counted {gained} of {attempted} attempted")
        assert not outcomes.other, f"only 200 or a JSON 503 is allowed: {outcomes.other}"
        assert outcomes.acknowledged <= gained, f"acknowledged views were lost: {outcomes}, counted {gained}"
        assert gained <= outcomes.acknowledged + outcomes.unknown <= attempted, (
            f"counted twice: {outcomes}, counted {gained}"
        )


@dataclass(frozen=True)
class AcknowledgedVote:
    """One acknowledged vote: which client sent it, under which key, when the answered request left, and
    (from a cookieless client) the option and the voter its answer's cookie made the client."""

    voter: int
    key: str
    sent_at: float
    option: str | None = None
    became: str | None = None


def unsigned(signed: str) -> str:
    """The value of a signed voter cookie (`anon:<hex>`), without checking the signature."""
    # A signed cookie is `value:timestamp:signature`, and the value (`anon:<hex>`) holds a colon itself.
    return signed.rsplit(":", 2)[0]


def forget_voter(voter: HttpVoter) -> None:
    """Drop the client's voter cookie (keeping its CSRF cookie), as a client that keeps none would."""
    jar = voter.session.cookies
    for cookie in [cookie for cookie in jar if cookie.name == conf.voter_cookie()]:
        jar.clear(cookie.domain, cookie.path, cookie.name)


class VoteLoad(Load):
    """Voters, each casting, moving and retracting votes one at a time until stopped.

    A vote without an answer (503, cut connection) is resent with the same Idempotency-Key until it
    is acknowledged, as the page does; only then does the voter go on.
    """

    def __init__(self, url: str, poll: str, options: list[str], *, cookieless: int = 0) -> None:
        self.url, self.poll = url, poll
        # Every fourth request retracts; the others move the vote around the options.
        self.plan = [*options, None]
        self.voters = [HttpVoter(url).visit() for _ in range(WRITERS)]
        # The last `cookieless` clients send each vote as a new voter: it only ever adds one.
        self.cookieless = set(range(WRITERS - cookieless, WRITERS))
        self.choices: dict[int, str | None] = {}
        self.acknowledged_votes: list[AcknowledgedVote] = []
        self.replayed = 0
        self.resent = 0
        self.gave_up: list[str] = []
        super().__init__()

    def _client(self, index: int) -> None:
        voter = self.voters[index]
        step = index
        cookieless = index in self.cookieless
        plan = self.plan[:-1] if cookieless else self.plan  # a new voter has nothing to retract
        while not self.stopping.is_set():
            option = plan[step % len(plan)]
            step += 1
            key = uuid.uuid4().hex
            answered = self._until_acknowledged(voter, option, key=key, cookieless=cookieless)
            if answered is None:
                self.gave_up.append(f"voter {index}")
                return
            answer, sent_at = answered
            with self.timeline.lock:
                if cookieless:
                    became = answer.cookies.get(conf.voter_cookie())
                    vote = AcknowledgedVote(index, key, sent_at, option, became and unsigned(became))
                    self.acknowledged_votes.append(vote)
                else:
                    self.acknowledged_votes.append(AcknowledgedVote(index, key, sent_at))
                    self.choices[index] = answer.json()["choice"]
                self.replayed += answer.headers.get("Idempotent-Replayed") == "true"

    def _until_acknowledged(
        self, voter: HttpVoter, option: str | None, *, key: str, cookieless: bool
    ) -> tuple[requests.Response, float] | None:
        """Send the vote until it is acknowledged: its answer and when that request was sent."""
        deadline = time.monotonic() + DEADLINE
        first = True
        while time.monotonic() < deadline:
            sent_at = time.monotonic()
            if not first:
                with self.timeline.lock:
                    self.resent += 1
            first = False
            if cookieless:
                forget_voter(voter)
            try:
                response = voter.vote(self.poll, option, key=key)
            except requests.RequestException:
                response = None
            self.timeline.add(response, sent_at)
            if response is not None and response.status_code == 200:
                return response, sent_at
            if response is not None and response.status_code != 503:
                return None  # anything but 200 or 503 is a failure the checks report
            time.sleep(RESEND_PAUSE)
        return None

    def expected_gain(self) -> Counter:
        """Each option's votes from these clients: every voter's last acknowledged choice, and every
        cookieless client's acknowledged votes (each one a voter of its own)."""
        gain = Counter(choice for choice in self.choices.values() if choice is not None)
        gain.update(vote.option for vote in self.acknowledged_votes if vote.voter in self.cookieless)
        return gain

    def assert_exact(self, before: dict[str, int], after: dict[str, int]) -> None:
        """The poll holds exactly the acknowledged votes, and every vote was acknowledged in the end."""
        outcomes = self.timeline.outcomes
        print(f"{outcomes}; {self.resent} resent, {self.replayed} answered from the stored reply")
        assert not self.gave_up, f"votes never acknowledged: {self.gave_up}; {outcomes}"
        assert not outcomes.other, f"only 200 or a JSON 503 is allowed: {outcomes.other}"
        gain = self.expected_gain()
        assert after == {option: before[option] + gain[option] for option in before}, (before, after, gain)

    def lost(self, store) -> list[AcknowledgedVote]:
        """Acknowledged votes the store does not hold: their idempotency record is gone."""
        return [vote for vote in self.acknowledged_votes if store.stored_reply(self.poll, vote.key) is None]

    def assert_cookieless_counted_once(self, store) -> None:
        """Every cookieless key counted once, for the voter its acknowledged answer made the client."""
        votes = [vote for vote in self.acknowledged_votes if vote.voter in self.cookieless]
        held = store.poll_voters(self.poll)
        wrong = [
            vote
            for vote in votes
            if vote.became is None
            or held.get(vote.became) != vote.option
            or store.stored_reply(self.poll, vote.key).voter != vote.became
        ]
        print(f"{len(votes)} cookieless votes acknowledged, {len({v.became for v in votes})} voters")
        assert votes, "no cookieless vote was acknowledged"
        assert not wrong, f"cookieless votes not held by the voter their answer named: {wrong}"
        assert len({vote.became for vote in votes}) == len(votes)

    def assert_none_lost(self, store) -> None:
        """Every acknowledged vote is stored (its idempotency record, written in the same transaction)."""
        lost = self.lost(store)
        print(f"{len(self.acknowledged_votes)} acknowledged votes, lost: {lost}")
        assert not lost, f"acknowledged votes were lost: {lost}"
