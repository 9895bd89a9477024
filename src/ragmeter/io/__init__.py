"""Readers and writers: every dataset format in, results and manifest out."""

from ragmeter.io.readers import Dataset, load_dataset

__all__ = ["Dataset", "load_dataset"]
