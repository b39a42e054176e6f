"""Measures of a model's outputs: losses and rankings, F-measures, normalized margins (§5)."""
