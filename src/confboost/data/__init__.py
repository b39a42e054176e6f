"""Data preparation: binning of numeric features, text term postings, the Dataset."""
