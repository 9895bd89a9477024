"""One run from configuration to record: config (the validated RunConfig), prepare (every
check before a judge call), dry_run (what it will cost), record (the manifest), and the
judge speed the dry run reads."""
