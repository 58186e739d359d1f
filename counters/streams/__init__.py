"""Counters changed by any writer, shown live: the store's streams, read by one process per table.

The store offers the reading (its STREAMS capability; for DynamoDB counters/store/dynamodb/streams/:
the lease, shards, checkpoints, records and watched tables). Here is what does not depend on the
database: changes.py turns other writers' changes into pushes to open pages, worker.py runs the rounds
inside a web worker, `manage.py counters_stream` on its own, and status.py tells the admin who reads
(docs/streams.md).
"""
