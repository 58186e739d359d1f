"""Benchmark suite: same-run baselines for the store, the site's counted paths and exactness."""
