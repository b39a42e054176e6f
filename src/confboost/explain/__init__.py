"""Explanations of a boosted model: exact contributions, TreeSHAP, rules, SHAP's format.

The public functions of ``contributions`` (and ``shap_export.shap_model``) are imported on
first access, so that reading a model's rules (``rules``) does not load the numba kernels.
"""

__all__ = ["bound_importances", "contribution_importances", "contributions",
           "partial_dependence", "shap_model"]


def __getattr__(name):
    """A public function of ``contributions`` or ``shap_export``, on first access."""
    if name == "shap_model":
        from confboost.explain.shap_export import shap_model

        return shap_model
    if name in __all__:
        from confboost.explain import contributions as module

        return getattr(module, name)
    raise AttributeError(f"module 'confboost.explain' has no attribute {name!r}")
