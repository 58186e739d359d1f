"""Under the production settings: probes answer over plain HTTP, /metrics keeps the HTTPS redirect."""

from __future__ import annotations

import json

from tests.security.test_production_settings import production_env, run

HOST = "counters.example.org"
# Each path's status and Location over plain HTTP, from Django's test client in a production process.
ASK = (
    "import json, django; django.setup(); from django.test import Client; c = Client(); "
    "print(json.dumps({p: [r.status_code, r.get('Location')] for p in ('/healthz', '/readyz', '/metrics') "
    f"for r in [c.get(p, HTTP_HOST='{HOST}')]}}))"
)


def test_probes_are_not_redirected_and_metrics_are(tmp_path):
    env = production_env(COUNTERS_DATA_DIR=str(tmp_path), COUNTERS_METRICS_TOKEN="t" * 32)
    result = run(env, "-c", ASK)
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers["/healthz"] == [200, None]
    # The store of these settings is never reachable: not ready, but answered here, not redirected.
    assert answers["/readyz"] == [503, None]
    # The token must not travel in clear: /metrics goes to HTTPS first.
    assert answers["/metrics"] == [301, f"https://{HOST}/metrics"]
