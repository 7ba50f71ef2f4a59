"""The 2PL fit against scipy.optimize.minimize on the same objective (numerical gradients),
and what it finds in responses built with a known sign."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad, minimize

from checkbench.audit.irt import fit_2pl, objective, objective_and_gradient


def _responses(seed: int, checks: int = 30, models: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta, a, d = rng.normal(size=models), rng.normal(1, 0.8, checks), rng.normal(0, 1, checks)
    p = 1 / (1 + np.exp(-(a[:, None] * theta[None, :] + d[:, None])))
    y = (rng.random((checks, models)) < p).astype(float)
    y[2, 3] = np.nan  # no scored verdict
    y[5, 1] = 0.5  # half of the samples passed
    return y


@pytest.mark.parametrize("seed", [0, 1])
def test_the_fit_is_the_optimum_scipy_finds_without_the_gradient(seed: int) -> None:
    y = _responses(seed)
    c, m = y.shape
    fit = fit_2pl(y)
    assert fit.converged
    found = minimize(
        lambda x: objective(y, x[:c], x[c : 2 * c], x[2 * c :]),
        np.r_[np.ones(c), np.zeros(c), np.zeros(m)],
        method="BFGS",
        options={"gtol": 1e-8, "maxiter": 20000},
    )
    assert objective(y, fit.a, fit.d, fit.theta) <= found.fun + 1e-6
    assert np.abs(found.x[:c] - fit.a).max() < 1e-3
    assert np.abs(found.x[c : 2 * c] - fit.d).max() < 1e-3
    assert np.abs(found.x[2 * c :] - fit.theta).max() < 1e-3


def test_the_analytic_gradient_is_the_numerical_one() -> None:
    y = _responses(2)
    seen = ~np.isnan(y)
    x = np.random.default_rng(4).normal(size=2 * y.shape[0] + y.shape[1])
    error = check_grad(
        lambda v: objective_and_gradient(v, np.nan_to_num(y), seen)[0],
        lambda v: objective_and_gradient(v, np.nan_to_num(y), seen)[1],
        x,
    )
    assert error < 1e-4


def test_a_check_the_weak_models_pass_gets_a_negative_discrimination() -> None:
    ability = np.arange(6) / 5  # m0 weakest
    ordinary = np.array([(ability >= t).astype(float) for t in (0.2, 0.4, 0.6, 0.8)] * 3)
    reversed_check = (ability < 0.5).astype(float)
    fit = fit_2pl(np.vstack([ordinary, reversed_check]))
    assert (fit.a[:-1] > 0).all()
    assert fit.a[-1] < 0
    assert np.all(np.diff(fit.theta[:5]) > 0)  # in the models' order (m4, m5 pass alike)
    assert fit.theta[5] == pytest.approx(fit.theta[4])
