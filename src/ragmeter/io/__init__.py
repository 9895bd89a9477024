"""Readers and writers: every dataset format in, results and manifest out."""

from ragmeter.io.datasets import load_dataset
from ragmeter.io.readers import Dataset

__all__ = ["Dataset", "load_dataset"]
