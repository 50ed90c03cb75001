"""laddu's ``ld.ganesh`` names for fit configuration, mapped onto laddu-cpp's minimisers.

``likelihood.fit(config=ld.ganesh.LBFGSBConfig(), terminators=[ld.ganesh.MaxSteps(1000)])``
chooses the method from the config and caps the iterations with MaxSteps; any other
terminator is a callable ``(iteration, value, x) -> bool`` that returns False to stop.
"""

__all__ = ["MaxSteps", "LBFGSBConfig", "NelderMeadConfig", "MigradConfig"]


class MaxSteps:
    """Stops a fit after ``max_steps`` iterations."""

    def __init__(self, max_steps: int) -> None:
        if int(max_steps) <= 0:
            raise ValueError(f"MaxSteps needs a positive step count, got {max_steps}")
        self.max_steps = int(max_steps)

    def __repr__(self) -> str:
        return f"MaxSteps({self.max_steps})"


class LBFGSBConfig:
    """L-BFGS-B with the analytic gradient and the parameters' bounds (the default)."""

    method = "lbfgsb"


class NelderMeadConfig:
    """The Nelder-Mead simplex (no gradient)."""

    method = "nelder_mead"


class MigradConfig:
    """A MIGRAD-like variable-metric minimiser (laddu-cpp's addition)."""

    method = "migrad"
