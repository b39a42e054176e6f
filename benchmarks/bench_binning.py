"""Binning 1M x 50: confboost's BinMapper (fit + transform) vs LightGBM Dataset.construct
and XGBoost QuantileDMatrix, on the same float32 matrix, each library in its own fresh
process."""

import tempfile

import common


def time_library(library, path):
    """In a child process: median seconds of ``library``'s binning of the split at ``path``."""
    X, y, _, _ = common.load_split(path)
    if library == "confboost":
        import numba

        from confboost.data.dataset import Dataset

        numba.set_num_threads(common.THREADS)
        Dataset.from_array(X[:1000], 255, 0)  # load the kernels from the cache first
        return common.median_time(lambda: Dataset.from_array(X, 255, 0))[0]
    if library == "lightgbm":
        import lightgbm as lgb

        params = {"max_bin": 255, "verbose": -1, "num_threads": common.THREADS}
        return common.median_time(lambda: lgb.Dataset(X, y, params=params).construct())[0]
    import xgboost as xgb

    return common.median_time(
        lambda: xgb.QuantileDMatrix(X, y, max_bin=256, nthread=common.THREADS))[0]


def run(n=1_000_000):
    with tempfile.TemporaryDirectory() as folder:
        path = common.save_split(common.synthetic(n), folder, "binning")
        return {library: common.fresh("bench_binning", "time_library", library, path)
                for library in ("confboost", "lightgbm", "xgboost")}


if __name__ == "__main__":
    print(run())
