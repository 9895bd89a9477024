"""One run from configuration to record: config (the validated RunConfig), prepare (every
check before a judge call), dry_run (what it will cost), upfront (the seconds it says before
its first call), record (the manifest), and the judge speed both read."""
