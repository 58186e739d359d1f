"""Time and count every DynamoDB call through botocore's own events, so no call site records anything.

`before-call` fires once per API call (before any retry), `after-call` once with the parsed answer,
error or not, and `after-call-error` when no answer came (refused, cut, timed out). Each handler only
notes a time or adds to an instrument: it never raises into the call it watches.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from counters.metrics import metrics

logger = logging.getLogger(__name__)

EVENT_SCOPE = "dynamodb"
# Where this module keeps its notes in botocore's per-call context (`after-call-error` gets no model).
STARTED = "counters_started"
OPERATION = "counters_operation"
CONDITION_FAILED = "ConditionalCheckFailedException"
TRANSACTION_CANCELED = "TransactionCanceledException"
# A cancelled transaction's reason per item: "None" for the items that were fine.
REFUSAL_REASONS = frozenset({"None", "ConditionalCheckFailed"})


def observe_calls(client: Any) -> Any:
    """Record the time and failures of every call `client` makes; return the client."""
    events = client.meta.events
    events.register(f"before-call.{EVENT_SCOPE}", _started)
    events.register(f"after-call.{EVENT_SCOPE}", _answered)
    events.register(f"after-call-error.{EVENT_SCOPE}", _unanswered)
    return client


def _started(*, model: Any, context: dict, **kwargs: Any) -> None:
    """Note which call began, and when (returning None lets botocore send it)."""
    context[OPERATION] = model.name
    context[STARTED] = time.perf_counter()


def _answered(*, http_response: Any, parsed: dict, model: Any, context: dict, **kwargs: Any) -> None:
    """An answer came back: its time, and its error code if DynamoDB refused the call."""
    if http_response.status_code < 300:
        record(model.name, context.pop(STARTED, None), None)
    elif condition_refused(parsed):
        record(model.name, context.pop(STARTED, None), None, refused=True)
    else:
        code = parsed.get("Error", {}).get("Code") or str(http_response.status_code)
        record(model.name, context.pop(STARTED, None), code)


def condition_refused(parsed: dict) -> bool:
    """Whether only a condition said no (an unknown counter, a visitor seen before, a key used before).

    Those are answers the app expects and turns into its own outcomes, not failures of the store; a
    transaction cancelled for a conflict or throttling is a failure.
    """
    code = parsed.get("Error", {}).get("Code")
    if code == CONDITION_FAILED:
        return True
    reasons = [reason.get("Code", "None") for reason in parsed.get("CancellationReasons") or ()]
    return code == TRANSACTION_CANCELED and bool(reasons) and set(reasons) <= REFUSAL_REASONS


def _unanswered(*, exception: BaseException, context: dict, **kwargs: Any) -> None:
    """No answer came back: its time, and the exception's class as the kind."""
    record(context.get(OPERATION, "unknown"), context.pop(STARTED, None), type(exception).__name__)


def record(operation: str, started: float | None, error: str | None, *, refused: bool = False) -> None:
    """Add one call begun at `started` (and its error or refusal, if any) to the instruments."""
    try:
        found = metrics()
        if started is not None:
            found.store_seconds.labels(operation).observe(time.perf_counter() - started)
        if error is not None:
            found.store_errors.labels(operation, error).inc()
        if refused:
            found.store_refusals.labels(operation).inc()
    except Exception:
        # A metric is never worth a failed count.
        logger.warning("Could not record a DynamoDB call's metrics", exc_info=True)
