"""Base helpers every layer may use: dtypes, thread counts, untrusted-field readers, files.

Nothing here imports another part of confboost.
"""
