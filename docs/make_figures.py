"""Make the README's pictures of a fitted model (docs/figures/*.png) and its rule listing.

Run from the repository root: ``python docs/make_figures.py``. Needs the ``plot`` extra
(matplotlib); the data are scikit-learn's bundled breast cancer and iris sets.
"""

from pathlib import Path

from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import train_test_split

from confboost import BoostClassifier, plot

OUT = Path(__file__).parent / "figures"


def main():
    OUT.mkdir(exist_ok=True)
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target_names[data.target]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    clf = BoostClassifier(n_estimators=200).fit(X_train, y_train)

    plot.learning_curves(clf, X_test, y_test).savefig(OUT / "learning_curves.png", dpi=100)
    plot.margins(clf, X_train, y_train, rounds=[5, 20, 200]).savefig(OUT / "margins.png",
                                                                     dpi=100)
    plot.contributions(clf, X_test.iloc[0]).savefig(OUT / "contributions.png", dpi=100)
    plot.dependence(clf, "worst area", X=X_test).savefig(OUT / "dependence.png", dpi=100)

    iris = load_iris(as_frame=True)
    small = BoostClassifier(n_estimators=4).fit(iris.data, iris.target_names[iris.target])
    (OUT / "iris_rules.txt").write_text(small.rules())
    print(f"wrote {sorted(p.name for p in OUT.iterdir())}")


if __name__ == "__main__":
    main()
