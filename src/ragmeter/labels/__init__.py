"""Human labels on a run's rows: the file people write (labels.jsonl), the sample they label,
and what the judge's scores plus a few labels say about the human mean (prediction-powered
inference)."""
