"""Readers and writers of the file formats that BoosTexter and icsiboost users have."""
