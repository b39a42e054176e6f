"""Binning 1M x 50: confboost's BinMapper (fit + transform) vs LightGBM Dataset.construct
and XGBoost QuantileDMatrix, on the same float32 matrix."""

import common


def run(n=1_000_000):
    import lightgbm as lgb
    import numba
    import xgboost as xgb

    from confboost.data.dataset import Dataset

    numba.set_num_threads(common.THREADS)
    X, y, _, _ = common.synthetic(n)
    Dataset.from_array(X[:1000], 255, 0)  # load the kernels from the cache first
    ours, _ = common.median_time(lambda: Dataset.from_array(X, 255, 0))
    params = {"max_bin": 255, "verbose": -1, "num_threads": common.THREADS}
    theirs, _ = common.median_time(lambda: lgb.Dataset(X, y, params=params).construct())
    xgb_time, _ = common.median_time(
        lambda: xgb.QuantileDMatrix(X, y, max_bin=256, nthread=common.THREADS))
    return {"confboost": ours, "lightgbm": theirs, "xgboost": xgb_time}


if __name__ == "__main__":
    print(run())
