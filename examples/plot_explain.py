"""
Explaining a model: importance, contributions, SHAP
===================================================

``clf.explain(X)`` splits every prediction f(x) exactly over the input columns (TreeSHAP
for trees; a stump's whole output goes to its column). ``plot.importance`` ranks the
columns, ``plot.contributions`` draws one prediction, and ``explain.shap_model`` hands the
same model to ``shap.TreeExplainer``.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer

from confboost import BoostClassifier, plot
from confboost.explain import contribution_importances, shap_model

data = load_breast_cancer(as_frame=True)
X, y = data.data, data.target_names[data.target]
clf = BoostClassifier(n_estimators=100, weak_learner="tree", max_leaves=4).fit(X, y)
contributions = clf.explain(X)          # (n_samples, n_features + 1): the last is the bias
print("sums to f:", np.allclose(contributions.sum(axis=1), clf.decision_function(X)))
print("largest mean |contribution|:",
      X.columns[np.argmax(contribution_importances(contributions))])

# %%
# Each column's share of the bound's decrease (no data needed) ...
by_bound = plot.importance(clf, max_display=10)

# %%
# ... and its mean absolute contribution to f over the data.
by_data = plot.importance(clf, X, max_display=10)

# %%
# One prediction, from the training mean of f to f(x).
waterfall = plot.contributions(clf, X.iloc[0])

# %%
# The same values from SHAP, where it is installed.
try:
    import shap
except ImportError:
    print("shap is not installed: pip install shap")
else:
    values = shap.TreeExplainer(shap_model(clf)).shap_values(X.to_numpy())
    print("largest difference from explain():",
          float(np.abs(values - contributions[:, :-1]).max()))
