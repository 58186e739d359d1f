"""A throwaway DynamoDB Local table for the benchmarks."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from counters.embedded.dynamodb_local import InMemoryDynamo, LocalDynamo


@contextmanager
def bench_dynamo() -> Iterator[LocalDynamo]:
    """Start DynamoDB Local in memory and point this process's store at a fresh table in it."""
    with InMemoryDynamo(base_dir=settings.BASE_DIR) as local:
        os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"] = (
            local.access_key_id,
            local.secret_access_key,
        )
        settings.DYNAMODB_ENDPOINT_URL, settings.AWS_REGION = local.endpoint_url, local.region
        settings.COUNTERS_TABLE = f"bench-{uuid.uuid4().hex[:8]}"
        yield local
