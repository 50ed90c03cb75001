"""Plots of ld.Histogram and ld.HistogramNd with matplotlib (laddu-cpp extension; laddu has none).

matplotlib is optional: it is imported when a plot is made, with the Agg backend (no display
needed), and a clear ImportError says how to install it when it is missing.
"""

from __future__ import annotations

import os
from typing import Any


def _pyplot():
    try:
        import matplotlib  # noqa: PLC0415  (optional dependency, imported on first plot)
    except ImportError as error:
        raise ImportError(
            "plotting a histogram needs matplotlib, which is not installed: pip install matplotlib"
        ) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return matplotlib, plt


def _check_type(name: str, value: Any, types: tuple, expected: str) -> None:
    if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__}")


def plot_histogram(
    hist: Any,
    path: str | os.PathLike[str] | None = None,
    *,
    ax: Any = None,
    label: str | None = None,
    errors: bool = True,
    density: bool = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    dpi: int = 100,
) -> Any:
    """Draw a histogram and optionally write it to an image file (laddu-cpp extension).

    Parameters
    ----------
    hist : Histogram or HistogramNd
        A 1-D ld.Histogram (drawn as steps, with error bars at the bin centres), or an
        ld.HistogramNd with one axis (the same) or two axes (a colour map of the counts).
    path : str or os.PathLike, optional
        Where to write the figure; the extension picks the format (".png", ".pdf", ".svg", ...).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; a new figure is made when omitted.
    label : str, optional
        Legend label of a 1-D histogram.
    errors : bool, default=True
        Draw the bin uncertainties of a 1-D histogram.
    density : bool, default=False
        Plot hist.density() instead of the counts.
    xlabel, ylabel, title : str, optional
        Axis labels and title.
    dpi : int, default=100
        Resolution of a raster file.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError, ValueError
        For arguments of the wrong type, or a path without a supported image extension.
    DataError
        If density=True and the histogram has no density (see Histogram.density).
    """
    from . import _core  # noqa: PLC0415

    if not isinstance(hist, (_core.Histogram, _core.HistogramNd)):
        raise TypeError(f"hist must be an ld.Histogram or ld.HistogramNd, got {type(hist).__name__}")
    if isinstance(hist, _core.HistogramNd) and hist.ndim > 2:
        raise ValueError(f"only 1-D and 2-D histograms can be plotted, this one has {hist.ndim} axes")
    for name, value in (("label", label), ("xlabel", xlabel), ("ylabel", ylabel), ("title", title)):
        if value is not None:
            _check_type(name, value, (str,), "a str or None")
    _check_type("errors", errors, (bool,), "a bool")
    _check_type("density", density, (bool,), "a bool")
    _check_type("dpi", dpi, (int,), "an int")
    if dpi <= 0 or dpi > 2000:
        raise ValueError(f"dpi must be in 1..2000, got {dpi}")
    if path is not None:
        path = os.fspath(path)  # TypeError for anything but str, bytes or os.PathLike
        if isinstance(path, bytes):
            path = os.fsdecode(path)
    matplotlib, plt = _pyplot()
    if ax is not None and not isinstance(ax, matplotlib.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    if path is not None:
        # Checked before drawing, so a wrong extension never writes a file.
        extension = os.path.splitext(path)[1].lstrip(".").lower()
        supported = plt.figure().canvas.get_supported_filetypes()
        plt.close()
        if extension not in supported:
            raise ValueError(
                f"cannot tell the image format of {path!r}: end the file name with one of "
                + ", ".join("." + e for e in sorted(supported))
            )

    shown = hist.density() if density else hist
    own_figure = ax is None
    if own_figure:
        figure, ax = plt.subplots()
    else:
        figure = ax.figure
    try:
        if isinstance(shown, _core.HistogramNd) and shown.ndim == 2:
            x_edges, y_edges = shown.bin_edges
            mesh = ax.pcolormesh(x_edges, y_edges, shown.counts.T)
            figure.colorbar(mesh, ax=ax, label="density" if density else "weight")
        else:
            if isinstance(shown, _core.HistogramNd):
                edges, counts, sigma = shown.bin_edges[0], list(shown.counts), list(shown.errors)
            else:
                edges, counts, sigma = shown.bin_edges, shown.counts, shown.errors
            ax.stairs(counts, edges, label=label)
            if errors:
                centres = [0.5 * (lo + hi) for lo, hi in zip(edges[:-1], edges[1:])]
                ax.errorbar(centres, counts, yerr=sigma, fmt="none", ecolor="black", elinewidth=1)
            if label is not None:
                ax.legend()
            if ylabel is None:
                ylabel = "density" if density else "weight"
        if xlabel is not None:
            ax.set_xlabel(xlabel)
        if ylabel is not None:
            ax.set_ylabel(ylabel)
        if title is not None:
            ax.set_title(title)
        if path is not None:
            figure.savefig(path, dpi=dpi)
    finally:
        if own_figure and path is not None:
            plt.close(figure)
    return ax
