"""Which address a request or socket came from, trusting only the proxies the site says it runs."""

from __future__ import annotations


def trusted_address(remote: str, forwarded_for: str, *, proxies: int) -> str:
    """REMOTE_ADDR, or the X-Forwarded-For entry our own `proxies` added ("unknown" if there is none)."""
    if proxies > 0:
        # Only the last `proxies` entries come from proxies we trust; earlier ones are the client's word.
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return remote or "unknown"
