"""Which start should AdaBoost.MH use on single-label data: uniform or balanced (§7.2)?

Test error of real and discrete AdaBoost.MH with ``init="uniform"`` and ``init="balanced"``
on UCI multiclass sets (each at its default split of ``confboost.datasets.load``), read at
the given rounds from one fit's staged predictions. The measurement behind the default of
``BoostClassifier(init=...)``.

    python benchmarks/mh_init.py [--rounds 10 100] [--sets satimage pendigits vowel segment]
"""

import argparse
import time

import numpy as np

from confboost import BoostClassifier
from confboost.datasets import load


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--sets", nargs="+",
                        default=["satimage", "pendigits", "vowel", "segment"])
    arguments = parser.parse_args()
    rounds = sorted(arguments.rounds)
    print(f"| data set | confidence | init | {' | '.join(f'T={r}' for r in rounds)} | seconds |")
    print("|---|---|---|" + "---|" * len(rounds) + "---|")
    for name in arguments.sets:
        split = load(name)
        for confidence in ("real", "discrete"):
            for init in ("uniform", "balanced"):
                started = time.perf_counter()
                clf = BoostClassifier(rounds[-1], confidence=confidence, init=init,
                                      weak_learner="stump")
                clf.fit(split.X_train, split.y_train)
                seconds = time.perf_counter() - started
                errors = {}
                for t, predicted in enumerate(clf.staged_predict(split.X_test), start=1):
                    if t in rounds:
                        errors[t] = float(np.mean(predicted != split.y_test))
                cells = " | ".join(f"{errors.get(r, np.nan):.4f}" for r in rounds)
                print(f"| {name} | {confidence} | {init} | {cells} | {seconds:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
