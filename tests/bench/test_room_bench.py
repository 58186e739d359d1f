"""The room benchmark runs end to end in a tiny bounded run and writes well-formed, exact results."""

from __future__ import annotations

import pytest

from tests.bench.test_bench import BENCH_RUNS, run_bench

pytestmark = BENCH_RUNS


@pytest.mark.processes
def test_room_run_counts_every_vote_once_and_reaches_the_presenter_and_the_audience(tmp_path):
    room = run_bench(tmp_path, "room")["sections"]["room"]
    assert room["available"] is True, room.get("detail")
    figure = room["figure"]
    phones = figure["phones"]
    assert figure["baseline"]["statuses"] == {"200": phones} and figure["room"]["statuses"] == {"200": phones}
    assert figure["room"]["counted"] == figure["room"]["voters_added"] == phones
    assert figure["answers_never_shown"] == 0
    assert 0 <= figure["answer_to_presenter_ms"]["p50"] <= figure["answer_to_presenter_ms"]["p99"]
    assert figure["audience_converged"] == phones and figure["viewing_now_on_presenter"] == phones
    assert room["checks"]["exact"] is True
