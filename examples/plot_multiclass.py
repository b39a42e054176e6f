"""
AdaBoost.MH, MR and MO on a multiclass problem
==============================================

The paper's three multiclass schemes on the bundled vowel data set (11 classes, its official
split): the Hamming-loss reduction MH (Figure 2), the ranking-loss MR (Figure 5) and the
output-code MO (Figure 3). ``staged_predict`` gives the test error after every round.
"""

import numpy as np
from matplotlib.figure import Figure

from confboost import BoostClassifier
from confboost.datasets import load

split = load("vowel")
figure = Figure(figsize=(6, 3.8), layout="constrained")
axis = figure.subplots()
for scheme in ("mh", "mr", "mo"):
    clf = BoostClassifier(n_estimators=150, scheme=scheme, weak_learner="stump",
                          random_state=0).fit(split.X_train, split.y_train)
    errors = [100 * np.mean(predicted != split.y_test)
              for predicted in clf.staged_predict(split.X_test)]
    axis.plot(np.arange(1, len(errors) + 1), errors, label=f"AdaBoost.{scheme.upper()}")
    print(f"{scheme}: test error after {len(errors)} rounds {errors[-1]:.1f}%")
axis.set_xscale("log")
axis.set_xlabel("rounds")
axis.set_ylabel("test error (%)")
axis.legend()
axis.set_title("vowel: 11 classes, stumps")
