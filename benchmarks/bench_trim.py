"""Weight trimming: seconds per round, test accuracy and the share of examples the
histograms read, for trim = 0, 0.05, 0.1."""

import common
import numpy as np


def kept_share(X, y, rounds, beta):
    """Mean share of the examples the histograms read per round under ``trim=beta``."""
    from confboost.data.dataset import Dataset
    from confboost.engine.boosting import run_boosting
    from confboost.engine.learners import StumpLearner
    from confboost.engine.schemes.mh import MHScheme
    from confboost.kernels.criterion_numpy import mode_code

    signs = np.where(y[:, None] == 1, 1, -1).astype(np.int8)
    weight = np.ones(len(y))
    smoothing = 1.0 / (2.0 * len(y))
    learner = StumpLearner(mode_code("real"), smoothing, trim=beta)
    run_boosting(Dataset.from_array(X, 255, 0, weight), MHScheme(signs, weight, True), learner,
                 rounds, "auto", mode_code("real"), smoothing)
    return float(np.mean(learner.kept_)) / len(y)


def run(n=1_000_000, rounds=30):
    X, y, Xt, yt = common.synthetic(n)
    rows = {}
    for beta in (0.0, 0.05, 0.1):
        seconds, accuracy = common.run_confboost(X, y, Xt, yt, rounds, trim=beta)
        rows[beta] = (seconds, accuracy, kept_share(X, y, rounds, beta))
    return rows


if __name__ == "__main__":
    print(run())
