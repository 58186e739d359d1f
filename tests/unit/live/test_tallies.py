"""Visitors and bot views reach open pages as they rise: one read per interval, the largest count kept."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from counters import services
from counters.domain.names import SITE_VISITORS
from counters.domain.visitors import Client
from counters.live.loop import LiveLoop
from counters.live.tallies import TALLIES_EVENT, Tallies, TallyPush
from tests.support.live import dashboard_socket
from tests.support.timing import until

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def person(i: int, agent: str = BROWSER) -> Client:
    return Client(address=f"198.51.100.{i}", user_agent=agent)


async def test_first_visits_and_bot_views_reach_open_pages(memory_demo_store):
    async with dashboard_socket() as socket:
        snapshot = await socket.receive_json_from(timeout=10)
        assert snapshot["day"].startswith("D#")
        for i in range(3):
            for page in ("docs", "docs", "welcome"):
                await sync_to_async(services.view_record)(slug=page, client=person(i))
        await sync_to_async(services.view_record)(slug="docs", client=person(9, GOOGLEBOT))
        visitors, bots, frames = {}, {}, 0
        while visitors != {"docs": 3, "welcome": 3, SITE_VISITORS: 3} or bots != {"docs": 1}:
            frame = await socket.receive_json_from(timeout=10)
            if frame["type"] != "tallies":
                continue
            frames += 1
            assert frame["day"] == snapshot["day"]
            for name, count in frame["visitors"].items():
                assert count >= visitors.get(name, 0), "counts only grow"
                visitors[name] = count
            bots.update(frame["bots"])
        assert frames < 10, "first visits that meet travel together"


def test_counts_keep_their_largest_and_a_new_day_starts_again():
    held = Tallies()
    held.merge(day="D#2026-11-24", visitors={"docs": 5}, bots={"docs": 2})
    held.merge(day="D#2026-11-24", visitors={"docs": 4, "_site": 7}, bots={"docs": 1})
    assert (held.visitors, held.bots) == ({"docs": 5, "_site": 7}, {"docs": 2})
    held.merge(day="D#2026-11-25", visitors={"docs": 1}, bots={})
    held.merge(day="D#2026-11-24", visitors={"docs": 9}, bots={})  # a late read of the day before
    assert (held.day, held.visitors) == ("D#2026-11-25", {"docs": 1})
    taken = held.take()
    assert taken.as_message("tallies") == {
        "type": "tallies",
        "day": "D#2026-11-25",
        "visitors": {"docs": 1},
        "bots": {"docs": 2},
    }
    assert not held and held.day == "D#2026-11-25"


async def test_one_read_serves_the_visits_that_meet_and_a_failed_one_is_tried_again():
    reads, sent = [], []
    failures = [OSError("store down")]

    def read(names: list[str]) -> tuple[str, dict[str, int]]:
        reads.append(names)
        if failures:
            raise failures.pop()
        return "D#2026-11-25", {name: len(reads) for name in names}

    async def send(message: dict) -> None:
        sent.append(message)

    live = LiveLoop()
    live.follow_running()
    push = TallyPush(live, send=send, read=read)
    push.visitors_rose(["docs", SITE_VISITORS])
    push.bots_rose("docs", 4)
    push.visitors_rose(["welcome"])
    await until(lambda: sent, "the tallies pushed after the failed read", timeout=5)
    assert reads[0] == sorted(["docs", SITE_VISITORS, "welcome"])
    assert reads[1] == reads[0], "what the failed read held is read again"
    assert sent == [
        {
            "type": TALLIES_EVENT,
            "day": "D#2026-11-25",
            "visitors": {"_site": 2, "docs": 2, "welcome": 2},
            "bots": {"docs": 4},
        }
    ]
