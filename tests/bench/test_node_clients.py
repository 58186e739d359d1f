"""The Node load generator holds a few dashboard sockets on a real site and reports frames, totals and CPU."""

from __future__ import annotations

import pytest
import requests

from bench.node_clients import NodeClients
from tests.support.processes import SiteProcess
from tests.support.site import site_env_for

PAGE = "docs"


@pytest.mark.processes
@pytest.mark.timeout(180)
def test_node_sockets_end_on_the_counted_total_and_report_their_frames_and_cpu(
    demo_store, dynamodb_local, tmp_path
):
    env = site_env_for(demo_store, dynamodb_local, tmp_path, COUNTERS_SOCKETS_PER_ADDRESS="0")
    with SiteProcess(env=env, log_path=tmp_path / "site.log", quiet=True) as site:
        url = site.url.replace("http://", "ws://") + "/ws/counters/"
        with NodeClients([url], site.url, 5, watch=[PAGE], timeout=60) as node:
            cpu = node.cpu_seconds()
            for _ in range(3):
                requests.get(f"{site.url}/pages/{PAGE}/", timeout=30).raise_for_status()
            state = demo_store.get_many([PAGE])[0]
            final = {PAGE: (state.value, state.version)}
            seen = node.settle(final, timeout=30)
            assert node.cpu_seconds() >= cpu > 0
    assert len(seen) == 5 and all(socket.holds(final) for socket in seen)
    assert all(socket.frames >= 1 and socket.peak >= 1 and socket.last is not None for socket in seen)
