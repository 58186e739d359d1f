"""Per-worker figures the capacity model (capacity.py) starts from, each beside the bench that measures it.

The values are the latest measured ones (docs/performance.md, bench/results/); a figure not measured
yet says what it comes from instead. Refresh them after a run of the named command.
"""

# Site CPU ms per counted beacon, one daphne worker, C=8: `python -m bench all` (all-final.md: 1.38-1.49).
BEACON_CPU_MS = 1.49
# Site CPU ms per counted page view: `python -m bench cost` (counted page p50 at C=1, 3.95 ms, all-run1.md).
PAGE_VIEW_CPU_MS = 3.95
# Site CPU ms per vote, C=8: `python -m bench votes` (docs/performance.md, "Votes in one round trip": 4.28).
VOTE_CPU_MS = 4.28
# Daphne CPU µs per socket per frame at 1,000 sockets: `python bench/hand_out.py` (10.5).
FRAME_CPU_US = 10.5
# Frames a live socket gets per second under load: `python -m bench fanout` (3.3-3.8 at 3,000 open).
FRAMES_PER_SOCKET_S = 3.8
# Sockets one socket worker held, all converged: `python -m bench fanout` (5,000 over one worker).
SOCKETS_PER_SOCKET_WORKER = 5000
# ms one UpdateItem takes (group commit sends one per key per worker at a time): `python -m bench store`
# (raw UpdateItem ADD p50 at C=1 on DynamoDB Local, all-run1.md: 1.8; on AWS expect a few ms more).
WRITE_LATENCY_MS = 1.8
# Items one vote's transaction writes (voter record, option total, poll tally): `python -m bench votes`
# counts the calls; transactional writes cost two write units per item (DynamoDB's pricing).
VOTE_ITEMS = 3
# Redis messages per changed counter per counting worker per second: at most one per broadcast interval
# (COUNTERS_BROADCAST_INTERVAL, 0.1 s); not measured yet (`python -m bench votes fanout` will).
REDIS_MESSAGES_PER_COUNTER_S = 10
# Bytes stored per page per day: 1,440 minute buckets and 24 hour buckets of about 60 bytes each, kept
# 48 h (counters/domain/buckets.py); not measured yet.
STORED_BYTES_PER_PAGE_DAY = 1464 * 60
# A core's usable share: the rest is nginx, the event loop and headroom.
CORE_UTILISATION = 0.7
