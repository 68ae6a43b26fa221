# scikit-learn's approximate kernel SVM as a peer of kernclass::kernel_svm(approx = ...)
# in inst/benchmarks/run.R: Nystroem (uniformly sampled landmarks) or RBFSampler
# (random Fourier features) of the RBF kernel, then LinearSVC with the hinge
# loss (the loss kernclass's linear solver minimises). Reads the data run.R
# wrote (sklearn_peer.py; scaled as kernel_svm scales them) and writes the
# predictions and the seconds of fit and predict.
#   python3 -B sklearn_approx.py DIR N D M FEATURES COMPONENTS C GAMMA
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from sklearn_peer import arguments, fit_predict, read_data

folder, n, d, m, rest = arguments()
features, components = rest[0], int(rest[1])
cost, gamma = float(rest[2]), float(rest[3])
x, y, xt = read_data(folder, n, d, m)
if features == "nystroem":
    mapping = Nystroem(kernel="rbf", gamma=gamma, n_components=components, random_state=1)
else:
    mapping = RBFSampler(gamma=gamma, n_components=components, random_state=1)
model = make_pipeline(mapping, LinearSVC(C=cost, loss="hinge", dual=True, max_iter=10000))
fit_seconds, predict_seconds = fit_predict(model, folder, x, y, xt)
with open(f"{folder}/times.txt", "w") as out:
    out.write(f"{fit_seconds} {predict_seconds}\n")
