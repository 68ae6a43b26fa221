# scikit-learn's SVC as a peer of kernclass::kernel_svm in inst/benchmarks/run.R.
# Fits SVC on the data run.R wrote (sklearn_peer.py) with the same kernel, C,
# gamma and tolerance, and writes what run.R reports: the predictions, the
# seconds of fit and predict, LIBSVM's number of SMO iterations (-1 where
# scikit-learn does not say), and the support vectors' indices (1-based) and
# coefficients.
#   python3 -B sklearn_svc.py DIR N D M C GAMMA TOL
import numpy as np
from sklearn.svm import SVC

from sklearn_peer import arguments, fit_predict, read_data

folder, n, d, m, rest = arguments()
cost, gamma, tol = float(rest[0]), float(rest[1]), float(rest[2])
x, y, xt = read_data(folder, n, d, m)
model = SVC(kernel="rbf", C=cost, gamma=gamma, tol=tol)
fit_seconds, predict_seconds = fit_predict(model, folder, x, y, xt)
np.savetxt(f"{folder}/support.txt", model.support_ + 1, fmt="%d")
np.savetxt(f"{folder}/coef.txt", model.dual_coef_.ravel(), fmt="%.17g")
with open(f"{folder}/times.txt", "w") as out:
    out.write(f"{fit_seconds} {predict_seconds} {int(getattr(model, 'n_iter_', [-1])[0])}\n")
