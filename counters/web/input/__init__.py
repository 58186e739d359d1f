"""Input: request bodies and query strings read strictly into Python values, or refused."""
