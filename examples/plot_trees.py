"""
A round's rules drawn as a tree
===============================

``plot.tree(clf, t)`` draws round t's weak hypothesis: its tests at the nodes and what it
adds to f(x, l) at the leaves. A stump is a one-split tree with a third leaf for a missing
value; ``weak_learner="tree"`` grows trees best-first by the drop in Z (Eq. 10).
"""

from sklearn.datasets import load_iris

from confboost import BoostClassifier, plot

data = load_iris(as_frame=True)
X, y = data.data, data.target_names[data.target]

stumps = BoostClassifier(n_estimators=20, weak_learner="stump").fit(X, y)
print(stumps.rules(top=3))
stump = plot.tree(stumps, 1)

# %%
# A tree of at most five leaves, the second round of its model.
trees = BoostClassifier(n_estimators=10, weak_learner="tree", max_leaves=5).fit(X, y)
tree = plot.tree(trees, 2)
