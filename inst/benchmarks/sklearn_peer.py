# What the scikit-learn peers of inst/benchmarks/run.R share: the data run.R
# wrote into a folder (little-endian float64, column-major as R stores them)
# and the timed fit and predict, whose predictions and seconds go back there.
import sys
import time

import numpy as np


def arguments():
    """The folder, the numbers of training rows, columns and test rows, and
    the script's own arguments after them."""
    folder, n, d, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    return folder, n, d, m, sys.argv[5:]


def read_data(folder, n, d, m):
    def read(name, rows, cols):
        return np.fromfile(f"{folder}/{name}", dtype="<f8").reshape((cols, rows)).T.copy()

    return read("x.bin", n, d), read("y.bin", n, 1).ravel(), read("xt.bin", m, d)


def fit_predict(model, folder, x, y, xt):
    """Fits and predicts, writes the predictions (pred.txt); the seconds of each."""
    start = time.perf_counter()
    model.fit(x, y)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    pred = model.predict(xt)
    predict_seconds = time.perf_counter() - start
    np.savetxt(f"{folder}/pred.txt", pred, fmt="%d")
    return fit_seconds, predict_seconds
