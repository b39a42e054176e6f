"""
Probabilities round by round
============================

``predict_proba`` reads f through a temperature fitted on held-out f (the default
``calibration="temperature"``); ``staged_predict_proba`` gives the probabilities of the
model cut after each round, as scikit-learn's gradient boosting does.
"""

import numpy as np
from matplotlib.figure import Figure
from sklearn.datasets import load_wine
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from confboost import BoostClassifier

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0,
                                                    stratify=y)
figure = Figure(figsize=(6, 3.8), layout="constrained")
axis = figure.subplots()
for calibration in ("temperature", None):
    clf = BoostClassifier(n_estimators=100, calibration=calibration,
                          random_state=0).fit(X_train, y_train)
    losses = [log_loss(y_test, proba, labels=clf.classes_)
              for proba in clf.staged_predict_proba(X_test)]
    axis.plot(np.arange(1, len(losses) + 1), losses,
              label=f"calibration={calibration!r}")
    print(f"calibration={calibration!r}: test log loss {losses[-1]:.3f}")
axis.set_xscale("log")
axis.set_xlabel("rounds")
axis.set_ylabel("test log loss")
axis.legend()
axis.set_title("wine: staged_predict_proba")
