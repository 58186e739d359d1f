"""Checks of our own for a schemathesis run against a live site (loaded with SCHEMATHESIS_HOOKS).

- `refusals_change_no_total`: a request the site refused (4xx) changed no counter: the totals of
  `GET /api/counters` are read before every call and again after each refusal.
- `every_operation_reaches_its_logic`: each documented operation answered below 400 at least once,
  so the document's examples lead a generic client past the 404s and 400s.
The run must use one worker: the totals are compared around one request at a time.
"""

from __future__ import annotations

import threading

import requests
import schemathesis

TIMEOUT = 10

_before: dict[str, dict[str, int]] = {}
_lock = threading.Lock()


def totals(base_url: str) -> dict[str, int]:
    """Every counter's value, as the API lists them."""
    response = requests.get(f"{base_url}/api/counters", timeout=TIMEOUT)
    response.raise_for_status()
    return {counter["name"]: counter["value"] for counter in response.json()["counters"]}


@schemathesis.hook
def before_call(context, case, kwargs) -> None:
    """Remember the totals as they were before this request."""
    snapshot = totals(case.operation.schema.get_base_url())
    with _lock:
        _before[case.id] = snapshot


@schemathesis.check
def refusals_change_no_total(ctx, response, case) -> bool | None:
    """A refused request (4xx) left every total as it was."""
    if not 400 <= response.status_code < 500:
        return None
    with _lock:
        before = _before.get(case.id)
    if before is None:
        return None
    after = totals(case.operation.schema.get_base_url())
    changed = {name: (before.get(name), value) for name, value in after.items() if before.get(name) != value}
    if changed:
        raise AssertionError(f"A refused request ({response.status_code}) changed totals: {changed}")
    return True


@schemathesis.check
class every_operation_reaches_its_logic:  # the check is named by its class
    """Every tested operation answered below 400 at least once during the run."""

    def __init__(self) -> None:
        self.reached: set[str] = set()
        self.tested: set[str] = set()

    def after_response(self, ctx, response, case) -> None:
        label = case.operation.label
        self.tested.add(label)
        if response.status_code < 400:
            self.reached.add(label)

    def after_run(self, ctx) -> None:
        unreached = self.tested - self.reached
        if unreached:
            raise AssertionError(f"Never answered below 400: {', '.join(sorted(unreached))}")
