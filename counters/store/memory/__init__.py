"""The in-process counter store, laid out as the DynamoDB one: one module per concern (see backend.py)."""

from counters.store.memory.backend import MemoryCounterStore

__all__ = ["MemoryCounterStore"]
