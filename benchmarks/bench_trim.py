"""Weight trimming: seconds per round and test accuracy for trim = 0, 0.05, 0.1."""

import common


def run(n=1_000_000, rounds=30):
    X, y, Xt, yt = common.synthetic(n)
    rows = {}
    for beta in (0.0, 0.05, 0.1):
        rows[beta] = common.run_confboost(X, y, Xt, yt, rounds, trim=beta)
    return rows


if __name__ == "__main__":
    print(run())
