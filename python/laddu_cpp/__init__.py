"""laddu-cpp: amplitude analysis with laddu's API, backed by a C++ engine.

Use it as laddu is used::

    import laddu_cpp as ld

Every error the engine raises is a subclass of ``ld.Error`` named as in C++:
``ld.ModelError``, ``ld.CompileError``, ``ld.DataError``, ``ld.EvaluationError``,
``ld.BackendError``, ``ld.FitError`` (and ``ld.InternalError`` for bugs).
"""

from . import _core

__version__ = _core.__version__  # CMakeLists.txt's project version, also the wheel's

__all__ = [
    # errors
    "Error",
    "ModelError",
    "CompileError",
    "DataError",
    "EvaluationError",
    "BackendError",
    "FitError",
    "InternalError",
    "LadduError",
    # expressions
    "Expr",
    "Model",
    "scalar",
    "constant",
    "parameter",
    "complex",
    "polar_complex",
    "cis",
    "atan2",
    "acos",
    "vector",
    "matrix",
    "dot",
    "matmul",
    "matvec",
    "solve",
    # renderings (Expr/Model .equation .latex .tree .dot .svg)
    "DisplayColor",
    "ExprNodeKind",
    "NodeSelector",
    "NodeStyle",
    "NodeStyleRule",
    # physics and amplitudes
    "Vec3",
    "Vec4",
    "Edge",
    "Vertex",
    "VertexFrame",
    "Channel",
    "polarization_angle",
    "J",
    "S",
    "L",
    "M",
    "WignerD",
    "clebsch_gordan",
    "wigner_3j",
    "spherical_harmonic",
    "zlm",
    "Sheet",
    "BarrierKind",
    "q",
    "rho",
    "chew_mandelstam",
    "blatt_weisskopf",
    "blatt_weisskopf_custom",
    "breit_wigner",
    "relativistic_breit_wigner",
    "relativistic_breit_wigner_custom",
    "non_relativistic_breit_wigner",
    "flatte",
    "kopf_f0",
    "kopf_f2",
    "kopf_a0",
    "kopf_a2",
    "kopf_rho",
    "kopf_pi1",
    "kmatrix_benchmark_model",
    "kmatrix_benchmark_intensity",
    "cartesian_coupling",
    "polar_coupling",
    "Parity",
    "Isospin",
    "Statistics",
    "MandelstamChannel",
    "Particle",
    "particles",
    "RuleCheck",
    "RuleReport",
    "RuleSet",
    "PartialWave",
    "AllowedPartialWave",
    "SelectionRules",
    "amplitudes",
    # data
    "Dataset",
    "ParquetSink",
    "read_parquet",
    "ParquetSource",
    "Predicate",
    "Bin",
    "BinnedDataset",
    "DatasetBin",
    # generation
    "generate_ksks",
    "NBodyPhaseSpace",
    "accept_reject",
    "MassProposal",
    "ScalarSource",
    "InitialMomentum",
    "VertexProposal",
    "Generator",
    "GenerationReport",
    "ProvenEnvelopeReport",
    # execution
    "Execution",
    "MemoryBudget",
    "MemoryPlan",
    "MemoryResource",
    "MemoryState",
    "mpi",
    "gpu",
    "backend",
    "capabilities",
    # likelihoods
    "LikelihoodTerm",
    "UnbinnedNLL",
    "NLL",
    "ExtendedNLL",
    "RidgePenalty",
    "LassoPenalty",
    "Likelihood",
    "LikelihoodDiagnostics",
    "DatasetDiagnostics",
    "FitResult",
    "LikelihoodProjection",
    "BootstrapResult",
    "bootstrap_fit",
    "ganesh",
    # utilities
    "accurate_sum",
]

from . import ganesh  # noqa: E402  (laddu's minimiser vocabulary: MaxSteps, configs)
from . import _analysis  # noqa: E402  (NLL/ExtendedNLL keeping their inputs; Likelihood(execution=), diagnostics, projection, bootstrap_fit)

_PYTHON = {
    "ganesh": ganesh,
    "NLL": _analysis.NLL,
    "ExtendedNLL": _analysis.ExtendedNLL,
    "Likelihood": _analysis.Likelihood,
    "LikelihoodDiagnostics": _analysis.LikelihoodDiagnostics,
    "DatasetDiagnostics": _analysis.DatasetDiagnostics,
    "LadduError": _core.Error,  # laddu's name for the base class
}
globals().update({name: _PYTHON.get(name) or getattr(_core, name) for name in __all__})
