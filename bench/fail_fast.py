"""How long the site takes to answer while DynamoDB hangs, is gone, or throttles.

Run: .venv/bin/python bench/fail_fast.py   (prints numbers; asserts nothing)
A real daphne site talks to a throwaway DynamoDB Local through the fault proxy of the tests, with
the default timeouts (1 s connect, 2 s read).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "counters_site.test_settings")

import django

django.setup()

from django.conf import settings  # noqa: E402

from counters.demo import seed_demo  # noqa: E402
from counters.embedded.dynamodb_local import InMemoryDynamo  # noqa: E402
from counters.store.dynamodb.backend import DynamoCounterStore  # noqa: E402
from counters.store.dynamodb.clients import Connection, build_clients  # noqa: E402
from tests.support.faultproxy import FaultProxy  # noqa: E402
from tests.support.processes import SiteProcess  # noqa: E402
from tests.support.reliability import csrf_session  # noqa: E402
from tests.support.site import site_env_for  # noqa: E402

ROUNDS = 3


def timed(call) -> tuple[float, int]:
    """Seconds and status of one request."""
    started = time.perf_counter()
    status = call().status_code
    return time.perf_counter() - started, status


def measure(label: str, session, url: str) -> None:
    """Print the slowest of ROUNDS answers to a page, a beacon and the API listing."""
    for name, call in (
        ("GET /pages/docs/", lambda: session.get(f"{url}/pages/docs/", timeout=60)),
        ("GET /", lambda: session.get(f"{url}/", timeout=60)),
        ("POST /api/views/docs", lambda: session.post(f"{url}/api/views/docs", timeout=60)),
        ("GET /api/counters", lambda: session.get(f"{url}/api/counters", timeout=60)),
    ):
        results = [timed(call) for _ in range(ROUNDS)]
        worst = max(seconds for seconds, _ in results)
        print(f"{label:10} {name:22} status {results[-1][1]}  slowest of {ROUNDS}: {worst:6.3f} s")


def main() -> None:
    with InMemoryDynamo(base_dir=settings.BASE_DIR) as local, tempfile.TemporaryDirectory() as tmp:
        clients = build_clients(
            Connection(local.endpoint_url, local.region, local.access_key_id, local.secret_access_key)
        )
        store = DynamoCounterStore(
            client=clients.single_shot,
            retrying_client=clients.retrying,
            table=f"bench-{uuid.uuid4().hex[:8]}",
        )
        store.ensure_table()
        seed_demo(store)
        with FaultProxy.for_endpoint(local.endpoint_url) as proxy:
            env = site_env_for(store, local, Path(tmp))
            env["DYNAMODB_ENDPOINT_URL"] = proxy.endpoint_url
            with SiteProcess(env=env, log_path=Path(tmp) / "site.log") as site:
                session = csrf_session(site.url)
                measure("healthy", session, site.url)
                proxy.arm("delay", seconds=600)
                measure("hung", session, site.url)
                proxy.clear()
                proxy.arm("error")  # ProvisionedThroughputExceededException on every request
                measure("throttled", session, site.url)
                proxy.stop()  # its port closed, as a dead store's is
                measure("down", session, site.url)


if __name__ == "__main__":
    main()
