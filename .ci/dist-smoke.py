"""What a user does first with an installed wheel: import it, fit, predict; with an extra,
use it. Run by `make dist` inside a fresh virtual environment (not the development one).

Usage: python dist-smoke.py [plot] [dask]
"""

import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import confboost

assert confboost.__version__ == version("confboost"), (confboost.__version__,
                                                       version("confboost"))
assert "site-packages" in confboost.__file__, f"not the installed wheel: {confboost.__file__}"
script = Path(sys.executable).with_name("confboost")  # the environment's own entry point
shown = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True)
assert shown.stdout.strip() == f"confboost {confboost.__version__}", shown.stdout

from sklearn.datasets import load_iris  # noqa: E402

from confboost import BoostClassifier  # noqa: E402

X, y = load_iris(return_X_y=True)
clf = BoostClassifier(n_estimators=30, random_state=0).fit(X, y)
assert clf.score(X, y) > 0.9, clf.score(X, y)
with tempfile.TemporaryDirectory() as folder:
    clf.save(f"{folder}/iris.json")
    again = confboost.load(f"{folder}/iris.json")
    assert (again.predict(X) == clf.predict(X)).all()
print(f"confboost {confboost.__version__}: fit, predict, save and load work")

if "plot" in sys.argv[1:]:
    from confboost import plot

    figure = plot.learning_curves(clf, X, y)
    with tempfile.TemporaryDirectory() as folder:
        figure.savefig(f"{folder}/curves.png")
    print("plot extra: learning_curves drawn")

if "dask" in sys.argv[1:]:
    import dask.array as da
    import distributed

    from confboost.dask import DaskBoostClassifier

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster):
        model = DaskBoostClassifier(n_estimators=10).fit(da.from_array(X, chunks=50), y)
        assert model.score(X, y) > 0.9
    print("dask extra: DaskBoostClassifier fitted on a local cluster")
