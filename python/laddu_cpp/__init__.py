"""laddu-cpp: amplitude analysis with laddu's API, backed by a C++ engine.

Use it as laddu is used::

    import laddu_cpp as ld

Every error the engine raises is a subclass of ``ld.Error`` named as in C++:
``ld.ModelError``, ``ld.CompileError``, ``ld.DataError``, ``ld.EvaluationError``,
``ld.BackendError``, ``ld.FitError`` (and ``ld.InternalError`` for bugs).
"""

from . import _core

__version__ = "0.1.0"

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
    # data
    "Dataset",
    "ParquetSink",
    "read_parquet",
    # execution
    "Execution",
    # likelihoods
    "LikelihoodTerm",
    "NLL",
    "ExtendedNLL",
    "RidgePenalty",
    "LassoPenalty",
    "Likelihood",
    # utilities
    "accurate_sum",
]

globals().update({name: getattr(_core, name) for name in __all__})
