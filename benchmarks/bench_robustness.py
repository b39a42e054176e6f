"""What reading untrusted input costs: small hostile files, a long text, a save's read-back.

Each line: seconds (median of ``--repeat`` runs) and the peak memory ``tracemalloc`` sees
(Python and NumPy allocations), and whether the input was refused. Run it on another
checkout with ``PYTHONPATH=OTHER/src`` to compare two versions.

    python benchmarks/bench_robustness.py [--repeat 3]
"""

import argparse
import json
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from confboost import BoostClassifier
from confboost.data.text_experts import TextExpert
from confboost.estimators.classifier import load
from confboost.formats.model_json import model_document, save_document


def _measure(call, repeat):
    """(median seconds, peak MB, outcome) of ``call()``."""
    times, peak, outcome = [], 0.0, None
    for _ in range(repeat):
        tracemalloc.start()
        started = time.perf_counter()
        try:
            call()
            outcome = "accepted"
        except ValueError:
            outcome = "refused"
        times.append(time.perf_counter() - started)
        peak = max(peak, tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
    return statistics.median(times), peak, outcome


def _resigned(path, document):
    save_document(path, {key: value for key, value in document.items()
                         if key not in ("format", "version", "checksum")})
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    folder = Path(tempfile.mkdtemp())
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = np.digitize(X[:, 0], [-0.4, 0.4])

    small = folder / "small.json"
    BoostClassifier(5).fit(X, y).save(small)
    document = json.loads(small.read_text())
    document.update(n_features_in=49_999_999, feature_kinds=None, feature_names_in=None)
    wide = _resigned(folder / "wide.json", document)

    hamming = folder / "hamming.json"
    BoostClassifier(2, weak_learner="hamming_tree", max_leaves=8).fit(X, y).save(hamming)
    document = json.loads(hamming.read_text())
    entry = document["model"]["hypotheses"][0]
    entry["vote"] = [1.0, -1.0] * 75_000
    vote = _resigned(folder / "vote.json", document)

    words = [f"w{i}" for i in range(50)]
    texts = [" ".join(rng.choice(words, 8)) for _ in range(200)]
    labels = np.array(["w1" in text for text in texts]).astype(int)
    text_model = BoostClassifier(20, feature_types={"t": "text"},
                                 text_expert=TextExpert("ngram", length=64))
    text_model.fit(pd.DataFrame({"t": texts}), labels)
    long_text = pd.DataFrame({"t": [" ".join(rng.choice(words, 8000))]})

    big = BoostClassifier(500).fit(rng.normal(size=(3000, 20)),
                                   rng.integers(0, 2, 3000))
    saved = folder / "big.json"

    cases = [
        (f"model file of {wide.stat().st_size} B declaring 49,999,999 features",
         lambda: load(wide)),
        (f"Hamming tree vote of 150,000 entries ({vote.stat().st_size / 1e6:.1f} MB file)",
         lambda: load(vote)),
        (f"load of a {small.stat().st_size} B model file", lambda: load(small)),
        (f"predict one {len(long_text['t'][0]) / 1e3:.0f} KB text, ngram window 64",
         lambda: text_model.decision_function(long_text)),
        ("save a 500-round model (read back before writing)", lambda: big.save(saved)),
        ("write the same document only", lambda: save_document(saved, model_document(big))),
    ]
    for name, call in cases:
        seconds, peak, outcome = _measure(call, repeat)
        print(f"| {name} | {seconds:.3f} s | {peak:.1f} MB | {outcome} |")


if __name__ == "__main__":
    main()
