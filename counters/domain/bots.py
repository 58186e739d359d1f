"""Is a user agent a bot: a crawler, a link-preview fetcher, a headless browser or an HTTP library?

Recognised by the crawler-user-agents list (PyPI `crawler-user-agents`, Martin Monperrus's list of
about 1,500 patterns, released often, no dependencies). Why this one (docs/design.md): on the user
agents of tests/unit/domain/test_bots.py it misses no crawler, link preview or headless browser and
flags no browser, and its matching grows linearly with the user agent, where CrawlerDetect (about as
accurate) spent 5 s on one made-up 8 KB user agent. A user agent seen for the first time costs about
0.1 ms; the answer is then kept, so a repeat costs under a microsecond. An empty user agent is not
recognised as a bot.
"""

from __future__ import annotations

import functools

import crawleruseragents

# Distinct user agents a process remembers the answer for; real traffic repeats a few hundred of them.
CACHE_SIZE = 4096
# Real user agents are shorter; only this much is matched (about 1 ms at worst) and remembered, so a
# client sending a huge one costs no more.
MAX_LENGTH = 512


def is_bot(user_agent: str) -> bool:
    """Whether `user_agent` belongs to a crawler, preview fetcher, headless browser or script."""
    return _is_bot(user_agent[:MAX_LENGTH])


@functools.lru_cache(maxsize=CACHE_SIZE)
def _is_bot(user_agent: str) -> bool:
    """The list's answer for an already shortened user agent; patterns are compiled on first use."""
    return crawleruseragents.is_crawler(user_agent)
