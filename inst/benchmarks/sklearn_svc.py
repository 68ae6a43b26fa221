# scikit-learn's SVC as a peer of kernclass::kernel_svm in inst/benchmarks/run.R.
# Reads the training and test data that run.R wrote (little-endian float64,
# column-major as R stores them), fits SVC with the same kernel, C, gamma and
# tolerance, and writes what run.R reports: the seconds of fit and predict,
# the support vectors' indices (1-based) and coefficients, the predictions,
# and LIBSVM's number of SMO iterations (-1 where scikit-learn does not say).
#   python3 sklearn_svc.py DIR N D M C GAMMA TOL
import sys
import time

import numpy as np
from sklearn.svm import SVC

folder, n, d, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cost, gamma, tol = float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])


def read(name, rows, cols):
    return np.fromfile(f"{folder}/{name}", dtype="<f8").reshape((cols, rows)).T.copy()


x = read("x.bin", n, d)
y = read("y.bin", n, 1).ravel()
xt = read("xt.bin", m, d)
model = SVC(kernel="rbf", C=cost, gamma=gamma, tol=tol)
start = time.perf_counter()
model.fit(x, y)
fit_seconds = time.perf_counter() - start
start = time.perf_counter()
pred = model.predict(xt)
predict_seconds = time.perf_counter() - start
np.savetxt(f"{folder}/support.txt", model.support_ + 1, fmt="%d")
np.savetxt(f"{folder}/coef.txt", model.dual_coef_.ravel(), fmt="%.17g")
np.savetxt(f"{folder}/pred.txt", pred, fmt="%d")
with open(f"{folder}/times.txt", "w") as out:
    out.write(f"{fit_seconds} {predict_seconds} {int(getattr(model, 'n_iter_', [-1])[0])}\n")
