"""Plots the projections written by `laddu-cpp demo`: data vs the fitted model and its waves.

Usage: /usr/bin/python3 examples/python/plot_demo.py [DIR]   (default demo-output)

Reads DIR/histograms.json (binned data counts and fitted-projection curves over the accepted
MC, written by the demo) and writes DIR/projections.png. Needs only matplotlib
(Debian: python3-matplotlib).
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLES = {
    "fit": {"label": "fit (total)", "color": "black", "linewidth": 1.8},
    "S+": {"label": "S$^+$ wave", "color": "tab:blue", "linewidth": 1.4},
    "D+": {"label": "D$^+$ wave", "color": "tab:orange", "linewidth": 1.4},
    "S-": {"label": "S$^-$ wave", "color": "tab:green", "linewidth": 1.4},
}
AXIS_LABELS = {
    "m_kk": r"$m(K_S K_S)$ [GeV]",
    "cos_theta": r"$\cos\theta_{\mathrm{hel}}$ ($K_S$ in the $K_S K_S$ helicity frame)",
}


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "demo-output")
    hist = json.loads((out / "histograms.json").read_text())
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    for ax, key in zip(axes, ["m_kk", "cos_theta"]):
        h = hist[key]
        edges = h["edges"]
        centres = [(a + b) / 2 for a, b in zip(edges[:-1], edges[1:])]
        width = edges[1] - edges[0]
        for name in hist["order"]:
            ax.stairs(h["curves"][name], edges, **STYLES[name])
        data = h["data"]
        ax.errorbar(centres, data, yerr=[d ** 0.5 for d in data], fmt="o", markersize=3.5,
                    color="tab:red", ecolor="tab:red", label="data", zorder=5)
        ax.set_xlabel(AXIS_LABELS[key], fontsize=12)
        unit = " GeV" if key == "m_kk" else ""
        ax.set_ylabel(f"events / {width:.3g}{unit}", fontsize=12)
        ax.set_xlim(edges[0], edges[-1])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=10)
    fig.suptitle(hist["title"], fontsize=13)
    fig.tight_layout()
    fig.savefig(out / "projections.png", dpi=110)
    print(f"wrote {out / 'projections.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
