"""HTTP plumbing: errors from one table, allowed methods, middleware, rate limits, who sent a request."""
