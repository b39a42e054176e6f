"""Boosting schemes: AdaBoost.MH, MR and MO over one engine (paper §7–9)."""
