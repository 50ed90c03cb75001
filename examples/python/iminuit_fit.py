"""Minimise an ld.Likelihood with iminuit (MIGRAD) using laddu-cpp's exact gradient, then plot.

A Breit-Wigner in s on a flat background: generate data by accept-reject from known
parameters, fit mass and width from a perturbed start, and draw the data with the fitted
intensity. Run: PYTHONPATH=build/relassert/python /usr/bin/python3 examples/python/iminuit_fit.py
"""

from __future__ import annotations

import sys

import numpy as np
from iminuit import Minuit

import laddu_cpp as ld


def model() -> ld.Model:
    s = ld.scalar("s")
    mass = ld.parameter("mass", initial=1.0, bounds=(0.8, 1.2))
    width = ld.parameter("width", initial=0.1, bounds=(0.02, 0.3))
    bw = 1.0 / (mass**2 - s - 1j * mass * width)
    return ld.Model(bw.norm_sqr() * mass * width + 0.2)


def generate(n: int, truth: dict[str, float], seed: int) -> tuple[ld.Dataset, ld.Dataset]:
    rng = np.random.default_rng(seed)
    mc = ld.Dataset.from_arrays(scalars={"s": rng.uniform(0.5, 1.5, 20 * n)})
    intensity = model().evaluate(mc, parameters=truth, real=True)
    keep = rng.uniform(0, intensity.max(), len(intensity)) < intensity
    s = mc.column("s")[keep][:n]
    return ld.Dataset.from_arrays(scalars={"s": s}), mc


def fit(data: ld.Dataset, mc: ld.Dataset, start: dict[str, float]) -> Minuit:
    nll = ld.Likelihood([ld.NLL(model(), data=data, accepted_mc=mc)])
    minuit = Minuit(
        lambda p: nll.value(p),
        [start[name] for name in nll.parameter_names],
        grad=lambda p: nll.gradient(p),
        name=nll.parameter_names,
    )
    minuit.errordef = Minuit.LIKELIHOOD
    minuit.limits = [(0.8, 1.2), (0.02, 0.3)]
    minuit.migrad()
    minuit.hesse()
    return minuit


def plot(data: ld.Dataset, mc: ld.Dataset, minuit: Minuit, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = dict(zip(minuit.parameters, minuit.values))
    weights = model().evaluate(mc, parameters=params, real=True)
    weights *= len(data) / weights.sum()
    bins = np.linspace(0.5, 1.5, 41)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.hist(data.column("s"), bins=bins, histtype="step", color="black", label="data")
    ax.hist(mc.column("s"), bins=bins, weights=weights, histtype="stepfilled", alpha=0.4, label="fit")
    ax.set_xlabel(r"$s$ [GeV$^2$]")
    ax.set_ylabel("events / bin")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main() -> int:
    truth = {"mass": 1.02, "width": 0.12}
    data, mc = generate(5000, truth, seed=1)
    minuit = fit(data, mc, {"mass": 0.98, "width": 0.09})
    print(minuit)
    plot(data, mc, minuit, sys.argv[1] if len(sys.argv) > 1 else "iminuit_fit.png")
    return 0 if minuit.valid else 1


if __name__ == "__main__":
    sys.exit(main())
