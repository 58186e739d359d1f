"""A vote's totals pushed as the in-process store's write left them: exact, no read, newest wins."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from counters import services
from counters.live.coalesce import merge

OPTIONS = ("go", "rust")
NAMES = [f"language.{option}" for option in OPTIONS]


def test_a_vote_pushes_the_totals_its_write_left_with_no_read(memory_demo_store, published, monkeypatch):
    services.vote_cast(poll_id="language", voter="v1", option="go")  # the poll's totals known from now
    reads: list[list[str]] = []
    read = memory_demo_store.get_many
    monkeypatch.setattr(memory_demo_store, "get_many", lambda names: reads.append(list(names)) or read(names))
    body = services.vote_cast(poll_id="language", voter="v2", option="go").body
    assert reads == [], "the vote read no totals"
    stored = read(["language.go"])[0]
    assert published[-1] == ("language.go", stored.value, stored.version) == ("language.go", 2, 2)
    assert next(o["votes"] for o in body["poll"]["options"] if o["id"] == "go") == 2


def test_votes_pushed_in_any_order_end_on_the_stored_totals(memory_demo_store, published):
    def vote(i: int) -> None:
        services.vote_cast(poll_id="language", voter=f"v{i}", option=OPTIONS[i % 2])

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(vote, range(40)))
    stored = {s.name: (s.value, s.version, "") for s in memory_demo_store.get_many(NAMES)}
    # Every push is a state the counter had (each vote here only adds one: value and version rise together).
    assert all(value == version for name, value, version in published if name in stored)
    # However the pushes reach a page, by version the newest wins: the stored totals.
    for order in (published, list(reversed(published))):
        pending: dict = {}
        merge(pending, order)
        assert {name: pending[name] for name in stored} == stored == {n: (20, 20, "") for n in NAMES}
