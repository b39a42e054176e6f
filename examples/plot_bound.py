"""
The training error and its bound
=================================

Theorem 1 of Schapire & Singer (1999): the training error of the combined classifier is
at most the product of the normalisers, Π Z_t. ``history_`` records both after every
round; ``plot.learning_curves`` draws them with the test error.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from confboost import BoostClassifier, plot

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
clf = BoostClassifier(n_estimators=200, weak_learner="stump").fit(X_train, y_train)
print(f"test accuracy {clf.score(X_test, y_test):.3f}")
print("training error <= bound on every round:",
      bool((clf.history_["train_loss"] <= clf.history_["bound"]).all()))

# %%
# Training error (solid), its bound (dashed) and the test error, per round.
figure = plot.learning_curves(clf, X_test, y_test)

# %%
# The §5 margins: after more rounds, fewer training examples have a small margin.
margins = plot.margins(clf, X_train, y_train, rounds=[5, 20, 200])
