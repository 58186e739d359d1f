"""botocore handlers on a store's clients for the length of a block."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

BEFORE_SEND = "before-send.dynamodb"


@contextmanager
def before_every_attempt(store: Any, handler: Callable[..., Any], *, first: bool = False) -> Iterator[None]:
    """Call `handler` on botocore's `before-send` of each of the store's clients (each client once)."""
    clients = {id(client): client for client in (store.client, store.retrying)}.values()
    for client in clients:
        register = client.meta.events.register_first if first else client.meta.events.register
        register(BEFORE_SEND, handler)
    try:
        yield
    finally:
        for client in clients:
            client.meta.events.unregister(BEFORE_SEND, handler)
