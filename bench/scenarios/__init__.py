"""One module per figure; each `run(env, budget, results)` returns a section of the report."""
