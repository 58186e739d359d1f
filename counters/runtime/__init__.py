"""This process's state in one object: the store, what is kept per store, live objects, thread pools.

Built the way Django keeps `caches` and `connections` and Channels keeps `channel_layers`: one
`Runtime` per process, made lazily. Each part is a typed attribute (parts.py declares them all:
`runtime().store`, `runtime().broadcaster`), built on first use by a factory found by its dotted
path, so this package imports no layer above it; the factories that tie parts together live in
counters/wiring.py and take their collaborators from the runtime. A part built from another, or from
a setting, is dropped with it: one `setting_changed` receiver drops what a changed setting shaped,
and only that. Tests build a runtime with what they need (`Runtime(given={...})`, or `give()`) and
install it with `use_runtime`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from counters.runtime.parts import Part, Parts, parts_of

__all__ = ["Runtime", "reset_runtime", "runtime", "use_runtime"]

logger = logging.getLogger(__name__)


class Runtime(Parts):
    """The parts of one process, each built once on first use and closed with what it was built from."""

    def __init__(self, *, given: Mapping[str, Any] | None = None) -> None:
        self._specs: dict[str, Part[Any]] = parts_of(type(self))
        for name in given or {}:
            self._spec(name)
        self._given = dict(given or {})  # parts handed in as they are (tests); never closed here
        self._built: dict[str, Any] = dict(self._given)  # in build order, which closing reverses
        self._users: dict[str, set[str]] = {}  # part -> the parts built with it
        self._lock = threading.RLock()
        self._building = threading.local()

    def _get(self, name: str) -> Any:
        """The part called `name`, built now if this is its first use (its attribute's way in)."""
        stack = self._stack()
        if stack:  # asked for by a factory running on this thread (under the lock): remember the tie
            self._users.setdefault(name, set()).add(stack[-1])
        found = self._built.get(name)
        if found is not None:
            return found
        with self._lock:
            if name not in self._built:
                self._built[name] = self._build(name, stack)
            return self._built[name]

    def give(self, name: str, part: Any) -> Any:
        """Use `part` as `name` from now on (a test's stand-in), dropping what was built before; return it."""
        self._spec(name)
        self._given.pop(name, None)
        self.drop(name)
        with self._lock:
            self._given[name] = self._built[name] = part
        return part

    def built(self, name: str) -> Any | None:
        """The part if it has been built, else None (never builds)."""
        return self._built.get(name)

    def drop(self, name: str) -> None:
        """Forget a part and every part built with it; close them, the most recent first."""
        with self._lock:
            # A part handed in stays (a test's store outlives a settings change); what was built with it goes.
            doomed = self._with_users(name) - self._given.keys()
            dropped = [
                (part, self._built.pop(part)) for part in reversed(list(self._built)) if part in doomed
            ]
            for part in doomed:
                self._users.pop(part, None)
        for part, made in dropped:
            close_quietly(part, made)

    def settings_changed(self, setting: str) -> None:
        """Drop the parts a setting shapes (and those built with them)."""
        for name, spec in self._specs.items():
            if setting in spec.settings:
                self.drop(name)

    def close(self) -> None:
        """Close every part, the most recent first."""
        for name in reversed(list(self._built)):
            if name in self._built:
                self.drop(name)

    def each_built(self) -> Iterator[Any]:
        """Every part built so far."""
        return iter(list(self._built.values()))

    def _spec(self, name: str) -> Part[Any]:
        spec = self._specs.get(name)
        if spec is None:
            raise LookupError(f"No part of the runtime is called {name!r}.")
        return spec

    def _build(self, name: str, stack: list[str]) -> Any:
        spec = self._spec(name)
        for needed in spec.needs:
            self._users.setdefault(needed, set()).add(name)
        stack.append(name)
        try:
            return resolve(spec.factory)(self)
        finally:
            stack.pop()

    def _with_users(self, name: str) -> set[str]:
        """`name` and, transitively, every part built with it."""
        found, todo = set(), [name]
        while todo:
            part = todo.pop()
            if part not in found:
                found.add(part)
                todo.extend(self._users.get(part, ()))
        return found

    def _stack(self) -> list[str]:
        stack = getattr(self._building, "stack", None)
        if stack is None:
            stack = self._building.stack = []
        return stack


def resolve(path: str) -> Any:
    """What a dotted path names: a module's attribute, or an attribute of one (`module.Class.method`)."""
    try:
        return import_string(path)
    except ImportError:
        owner, _, name = path.rpartition(".")
        if not owner:
            raise
        return getattr(resolve(owner), name)


def close_quietly(name: str, part: Any) -> None:
    """Close one part if it can be closed; a failure is logged, never raised into a reset."""
    close = getattr(part, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:
        logger.exception("Closing the runtime's %s failed", name)


_lock = threading.Lock()
_current: Runtime | None = None


def runtime() -> Runtime:
    """This process's runtime, made on first use."""
    global _current
    current = _current
    if current is not None:
        return current
    with _lock:
        if _current is None:
            _current = Runtime()
        return _current


def reset_runtime() -> None:
    """Close this process's runtime; the next use builds a new one from the settings."""
    old = _swap(None)
    if old is not None:
        old.close()


@contextmanager
def use_runtime(replacement: Runtime) -> Iterator[Runtime]:
    """Make `replacement` this process's runtime for a block, then close it and restore the one before."""
    before = _swap(replacement)
    try:
        yield replacement
    finally:
        _swap(before)
        replacement.close()


def _swap(replacement: Runtime | None) -> Runtime | None:
    global _current
    with _lock:
        before, _current = _current, replacement
        return before


@receiver(setting_changed)
def follow_settings(*, setting: str, **kwargs: object) -> None:
    """Rebuild lazily what a changed setting shapes (override_settings in tests)."""
    current = _current
    if current is not None:
        current.settings_changed(setting)
