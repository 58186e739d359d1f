"""The table's DynamoDB stream and the watched tables, read by one process per table (docs/streams.md).

lease.py elects the reader (a lease item in the table), shards.py follows the stream's shards,
checkpoints.py keeps each shard's last read change in the table, records.py picks out the changes
another service made, reader.py ties them together for one table's stream, watched.py and poller.py
follow watched tables, and site.py holds them all: the STREAMS capability of the DynamoDB store. What
the changes mean for open pages, and the thread that runs the rounds, are counters/streams/'s.
"""
