"""Pages created at their first view, under the site's cap, in DynamoDB.

One item `PK=SITE`, `SK=PAGES` keeps `created` and `refused`. A new page is one transaction: its
total and registry items (each only if absent) and `ADD created 1` only while `created < cap`. So
however many requests race to create pages, no more than `cap` are ever created, with no read first.
A transaction refused by the cap alone adds one to `refused` (what the admin shows).
"""

from __future__ import annotations

import random
import time

from counters.domain import refusals
from counters.domain.clock import now_iso
from counters.domain.page_rules import PageBudget
from counters.domain.values import CounterDefinition
from counters.exceptions import PageLimitReached, StoreUnavailable
from counters.store.dynamodb import items, schema
from counters.store.dynamodb.expressions import named, typed
from counters.store.dynamodb.schema import as_int
from counters.store.dynamodb.table import CONDITION_FAILED, TRANSACTION_CONFLICT, Table, TransactionCancelled

BUDGET_KEY = {schema.PK: {"S": "SITE"}, schema.SK: {"S": "PAGES"}}
CREATED = "created"
REFUSED = "refused"
UNDER_CAP = "attribute_not_exists(#created) OR #created < :cap"
# New pages made at once meet on the budget item: a transaction that lost the race tries again.
CREATE_ATTEMPTS = 5
BACKOFF_SECONDS = 0.01


def create_page(table: Table, definition: CounterDefinition, *, cap: int) -> bool:
    """Create the page's counter in one transaction with the cap's ADD; False if it existed."""
    for attempt in range(CREATE_ATTEMPTS):
        try:
            return _create_once(table, definition, cap=cap)
        except TransactionCancelled as exc:
            if TRANSACTION_CONFLICT not in exc.codes:
                raise StoreUnavailable("The counter store refused the new page; try again.") from exc
        time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
    raise StoreUnavailable("Too many new pages at once; this one was not created yet.")


def _create_once(table: Table, definition: CounterDefinition, *, cap: int) -> bool:
    """One transaction: the page's items if absent, and the budget's ADD if under the cap."""
    total, registry = items.counter_items(definition, now_iso())[:2]
    budget = table.update_entry(
        BUDGET_KEY,
        update="ADD #created :one",
        condition=UNDER_CAP,
        names=named(created=CREATED),
        values=typed(one=1, cap=cap),
    )
    try:
        table.transact([table.put_new_entry(total), table.put_new_entry(registry), budget], write=False)
    except TransactionCancelled as exc:
        if CONDITION_FAILED in exc.codes[:2]:
            return False  # the page exists: it keeps counting, at the cap or not
        if exc.codes[2:3] == [CONDITION_FAILED]:
            _count_refusal(table)
            raise PageLimitReached(refusals.page_cap(cap)) from exc
        raise
    return True


def _count_refusal(table: Table) -> None:
    """One more page refused at the cap (a tally for the admin: resending it is harmless)."""
    table.update_item(
        BUDGET_KEY, update="ADD #refused :one", names=named(refused=REFUSED), values=typed(one=1)
    )


def page_budget(table: Table) -> PageBudget:
    """Pages created and refused, from one strongly consistent read."""
    item = table.get_item(BUDGET_KEY) or {}
    return PageBudget(created=as_int(item.get(CREATED)), refused=as_int(item.get(REFUSED)))
