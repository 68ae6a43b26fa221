# scikit-learn's approximate kernel SVM as a peer of kernclass::kernel_svm(approx = ...)
# in inst/benchmarks/run.R: Nystroem (uniformly sampled landmarks) or RBFSampler
# (random Fourier features) of the RBF kernel, then LinearSVC with the hinge
# loss (the loss kernclass's linear solver minimises). Reads the data run.R
# wrote (little-endian float64, column-major, scaled as kernel_svm scales
# them) and writes the seconds of fit and predict and the predictions.
#   python3 sklearn_approx.py DIR N D M FEATURES COMPONENTS C GAMMA
import sys
import time

import numpy as np
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

folder, n, d, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
features, components = sys.argv[5], int(sys.argv[6])
cost, gamma = float(sys.argv[7]), float(sys.argv[8])


def read(name, rows, cols):
    return np.fromfile(f"{folder}/{name}", dtype="<f8").reshape((cols, rows)).T.copy()


x = read("x.bin", n, d)
y = read("y.bin", n, 1).ravel()
xt = read("xt.bin", m, d)
if features == "nystroem":
    mapping = Nystroem(kernel="rbf", gamma=gamma, n_components=components, random_state=1)
else:
    mapping = RBFSampler(gamma=gamma, n_components=components, random_state=1)
model = make_pipeline(mapping, LinearSVC(C=cost, loss="hinge", dual=True, max_iter=10000))
start = time.perf_counter()
model.fit(x, y)
fit_seconds = time.perf_counter() - start
start = time.perf_counter()
pred = model.predict(xt)
predict_seconds = time.perf_counter() - start
np.savetxt(f"{folder}/pred.txt", pred, fmt="%d")
with open(f"{folder}/times.txt", "w") as out:
    out.write(f"{fit_seconds} {predict_seconds}\n")
