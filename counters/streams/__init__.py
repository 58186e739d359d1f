"""Counters changed by any writer, shown live: the table's DynamoDB stream, read by one process per site.

lease.py elects the reader (a lease item in the table), shards.py follows the stream's shards,
checkpoints.py keeps each shard's last read change in the table, records.py picks out the changes
another service made, and reader.py ties them together and publishes through the live push; worker.py
runs it inside a web worker, `manage.py counters_stream` on its own (docs/streams.md).
"""
