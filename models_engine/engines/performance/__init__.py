"""Performance engine: memory fit, step time, throughput and time to train."""
