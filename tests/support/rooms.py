"""A site with three room polls (hidden results, multiple choice, rating) and a staff user."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page

from counters.domain.poll_rules import RATING_OPTIONS
from counters.domain.values import PollDefinition, PollOption
from tests.support.browser import admin_login, staff_site, watched
from tests.support.processes import SiteProcess
from tests.support.site import fresh_store, site_env_for

USERNAME, PASSWORD = "presenter", "a-long-test-password-42"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def room_polls() -> list[PollDefinition]:
    """The evening's three polls, in the order the presenter runs them."""
    colours = tuple(PollOption(id=o, label=o.title()) for o in ("red", "green", "blue"))
    talks = tuple(PollOption(id=o, label=label) for o, label in (
        ("caching", "Caching at the edge"), ("queues", "Queues that never lose a job"),
        ("search", "Search without a search engine"), ("types", "Types in a dynamic language"),
    ))  # fmt: skip
    rating = tuple(PollOption(id=o, label=o) for o in RATING_OPTIONS)
    return [
        PollDefinition(id="a-colour", question="Which colour should the new logo be?", options=colours,
                       results="revealed"),
        PollDefinition(id="b-talks", question="Which talks do you want next month? Pick two.", options=talks,
                       kind="multi", max_picks=2),
        PollDefinition(id="c-rating", question="How was tonight's talk?", options=rating, kind="rating",
                       results="closed"),
    ]  # fmt: skip


@dataclass
class RoomSite:
    """The running site, its store and its polls as stored (with their join codes)."""

    site: SiteProcess
    store: object
    polls: dict[str, PollDefinition]

    def url(self, poll: str, *, present: bool = False) -> str:
        """The audience page (or present mode) of one of the polls."""
        return f"{self.site.url}/p/{self.polls[poll].code}" + ("/present" if present else "")


@contextmanager
def room_site(
    dynamodb_local, data_dir: Path, polls: list[PollDefinition] | None = None, **env: str
) -> Iterator[RoomSite]:
    """A table holding the polls, a staff user, and one site process on them."""
    with fresh_store(dynamodb_local, data_dir) as store:
        stored = {poll.id: store.create_poll(poll) for poll in polls or room_polls()}
        env = site_env_for(store, dynamodb_local, data_dir, **env)
        site = staff_site(env, data_dir / "site.log", username=USERNAME, password=PASSWORD)
        with site:
            yield RoomSite(site=site, store=store, polls=stored)


def presenter(browser: Browser, room: RoomSite, *, viewport=LAPTOP, scheme: str = "light", **options) -> Page:
    """A staff member's page, logged in through the admin's form."""
    context = browser.new_context(viewport=viewport, color_scheme=scheme, **options)
    page = watched(context)
    admin_login(page, room.site.url, username=USERNAME, password=PASSWORD)
    return page


def phone(browser: Browser, *, scheme: str = "light", **options) -> Page:
    """A phone of the audience: its own browser context (its own voter cookie) at 390x844."""
    context = browser.new_context(
        viewport=PHONE, color_scheme=scheme, is_mobile=True, has_touch=True, **options
    )
    return watched(context)
