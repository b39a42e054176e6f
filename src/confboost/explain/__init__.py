"""Explanations of a boosted model: exact contributions, TreeSHAP, rules.

The public functions of ``contributions`` are imported on first access, so that reading a
model's rules (``rules``) does not load the numba kernels.
"""

__all__ = ["bound_importances", "contribution_importances", "contributions",
           "partial_dependence"]


def __getattr__(name):
    """A public function of ``contributions``, on first access."""
    if name in __all__:
        from confboost.explain import contributions as module

        return getattr(module, name)
    raise AttributeError(f"module 'confboost.explain' has no attribute {name!r}")
