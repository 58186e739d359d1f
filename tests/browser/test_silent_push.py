"""A page whose live push falls silent (Redis paused) says "reconnecting", then resyncs when it is back."""

from __future__ import annotations

import time

import pytest
import requests
from playwright.sync_api import expect

from tests.support.browser import chromium
from tests.support.processes import SiteProcess
from tests.support.redis_server import RedisServer
from tests.support.site import site_env_for

HEARTBEAT_SECONDS = 1
# Three silent beats, the page's one-second check, and a loaded machine's slack.
NOTICED_WITHIN_MS = 12_000
BACK_WITHIN_MS = 30_000


def beacon(session: requests.Session, site: SiteProcess, slug: str) -> int:
    """Count one view of `slug` through the site; return the new total."""
    if "csrftoken" not in session.cookies:
        session.get(f"{site.url}/pages/{slug}/", timeout=10)
    answer = session.post(
        f"{site.url}/api/views/{slug}", headers={"X-CSRFToken": session.cookies["csrftoken"]}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["value"]


@pytest.mark.browser
@pytest.mark.processes
def test_a_paused_redis_shows_reconnecting_and_the_page_resyncs_after(demo_store, dynamodb_local, tmp_path):
    with RedisServer(tmp_path / "redis.log") as redis_server:
        env = site_env_for(
            demo_store,
            dynamodb_local,
            tmp_path,
            REDIS_URL=redis_server.url,
            COUNTERS_REDIS_PREFIX="silent",
            COUNTERS_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        )
        with SiteProcess(env=env, log_path=tmp_path / "site.log") as site, chromium() as browser:
            page = browser.new_page()
            page.goto(f"{site.url}/")
            expect(page.locator("#connection")).to_have_attribute("data-state", "live", timeout=20_000)

            redis_server.pause()
            paused_at = time.monotonic()
            expect(page.locator("#connection")).to_have_attribute(
                "data-state", "reconnecting", timeout=NOTICED_WITHIN_MS
            )
            print(f"'reconnecting' shown {time.monotonic() - paused_at:.1f} s after Redis paused")
            # Counting goes on without Redis; the page catches up from its next snapshot.
            session = requests.Session()
            total = [beacon(session, site, "docs") for _ in range(3)][-1]

            redis_server.resume()
            connection = page.locator("#connection")
            expect(connection).to_have_attribute("data-state", "live", timeout=BACK_WITHIN_MS)
            shown = page.locator('[data-counter="docs"]').first
            expect(shown).to_have_attribute("data-value", str(total), timeout=BACK_WITHIN_MS)
            logs = site.log_text()
    warnings = [line for line in logs.splitlines() if "WARNING" in line and "lost the channel layer" in line]
    assert len(warnings) == 1, "one warning for the outage"
    assert "Traceback" not in logs
