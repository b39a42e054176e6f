"""Prediction throughput of a 500-stump model on 50 features (rows per second)."""

import common


def run(n_rows=1_000_000, rounds=500):
    import numba

    from confboost import BoostClassifier

    numba.set_num_threads(common.THREADS)
    X, y, Xt, _ = common.synthetic(100_000)
    clf = BoostClassifier(n_estimators=rounds, n_jobs=common.THREADS, random_state=0,
                          weak_learner="stump").fit(X, y)
    big = common.synthetic(n_rows)[0]
    clf.decision_function(big[:100])
    seconds, _ = common.median_time(lambda: clf.decision_function(big))
    return {"rows_per_s": n_rows / seconds, "stumps": clf.n_estimators_, "seconds": seconds}


if __name__ == "__main__":
    print(run())
