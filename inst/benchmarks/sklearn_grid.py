# scikit-learn's GridSearchCV over SVC as a peer of kernclass::kernel_tune in
# inst/benchmarks/run.R: the cost x gamma grid, RBF, on the folds run.R gives
# (a file of fold numbers 1..k, one a line), each fold's training rows scaled
# by their own mean and sd (StandardScaler in the pipeline, as e1071::svm and
# kernel_tune scale them), accuracy, the best cell refitted on all rows.
# Writes the predictions on the test rows, the seconds of search (with its
# refit) and predict, and the best cell with its mean fold accuracy.
#   python3 -B sklearn_grid.py DIR N D M FOLDS COSTS GAMMAS N_JOBS
#   (COSTS, GAMMAS: comma-separated)
import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sklearn_peer import arguments, fit_predict, read_data

folder, n, d, m, rest = arguments()
fold = np.loadtxt(rest[0], dtype=int)
costs = [float(v) for v in rest[1].split(",")]
gammas = [float(v) for v in rest[2].split(",")]
x, y, xt = read_data(folder, n, d, m)
search = GridSearchCV(make_pipeline(StandardScaler(), SVC(kernel="rbf", tol=1e-3)),
                      {"svc__C": costs, "svc__gamma": gammas}, scoring="accuracy",
                      cv=PredefinedSplit(fold - 1), n_jobs=int(rest[3]))
fit_seconds, predict_seconds = fit_predict(search, folder, x, y, xt)
best = search.best_params_
with open(f"{folder}/times.txt", "w") as out:
    out.write(f"{fit_seconds} {predict_seconds}\n")
with open(f"{folder}/best.txt", "w") as out:
    out.write(f"{best['svc__C']} {best['svc__gamma']} {search.best_score_}\n")
