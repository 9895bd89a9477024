"""Finished runs: the manifest's schema, reading a run folder, merging shards, comparing two
runs, gates, the CI files and the terminal tables. Nothing here needs the engine."""
