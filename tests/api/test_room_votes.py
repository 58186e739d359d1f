"""A room behind one address: under the default settings every voter's vote counts, and the limit that
stops a voter clicking too fast is that voter's own (DynamoDB Local)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.test import Client

from tests.support.voting import poll_tally

ROOM = 300
ROOM_ADDRESS = "203.0.113.7"
URL = "/api/polls/language/vote"


@pytest.fixture
def default_rates(settings):
    """The vote limits as a site that sets none has them (the test settings turn them off)."""
    for name in ("COUNTERS_VOTE_RATE", "COUNTERS_VOTER_RATE"):
        if hasattr(settings, name):
            delattr(settings, name)


def vote(client: Client, option: str) -> int:
    body = json.dumps({"option": option})
    return client.post(URL, body, content_type="application/json", REMOTE_ADDR=ROOM_ADDRESS).status_code


@pytest.mark.django_db
def test_three_hundred_voters_behind_one_address_are_all_counted(demo_store, default_rates):
    options = ["python", "go", "rust", "typescript"]
    room = [Client() for _ in range(ROOM)]  # each phone its own browser, so its own voter cookie
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda n: vote(room[n], options[n % 4]), range(ROOM)))
    assert answers == [200] * ROOM
    assert poll_tally(demo_store, "language") == dict.fromkeys(options, ROOM // 4)
    # Each phone moves its vote once more: still nobody refused, and every vote is where it was moved.
    with ThreadPoolExecutor(8) as pool:
        moved = list(pool.map(lambda n: vote(room[n], "go"), range(ROOM)))
    assert moved == [200] * ROOM
    assert poll_tally(demo_store, "language") == {"python": 0, "go": ROOM, "rust": 0, "typescript": 0}


@pytest.mark.django_db
def test_one_voter_clicking_too_fast_is_refused_and_others_on_the_address_are_not(demo_store, default_rates):
    fast, neighbour = Client(), Client()
    answers = [vote(fast, option) for option in ["python", "go"] * 15]
    assert answers == [200] * 30
    refused = fast.post(
        URL, json.dumps({"option": "rust"}), content_type="application/json", REMOTE_ADDR=ROOM_ADDRESS
    )
    assert refused.status_code == 429 and "from one voter" in refused.json()["detail"]
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert vote(neighbour, "rust") == 200
