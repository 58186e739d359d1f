"""Fixtures of the deploy tests."""

from tests.support.iam_calls import call_recorder

__all__ = ["call_recorder"]
