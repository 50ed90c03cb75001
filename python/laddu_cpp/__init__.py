"""laddu-cpp: amplitude analysis with laddu's API, backed by a C++ engine.

Use it as laddu is used::

    import laddu_cpp as ld

Every error the engine raises is a subclass of ``ld.Error`` named as in C++:
``ld.ModelError``, ``ld.CompileError``, ``ld.DataError``, ``ld.EvaluationError``,
``ld.BackendError``, ``ld.FitError`` (and ``ld.InternalError`` for bugs).
"""

from ._core import (
    BackendError,
    CompileError,
    DataError,
    Error,
    EvaluationError,
    FitError,
    InternalError,
    ModelError,
    ParquetSink,
    Dataset,
    Execution,
    Expr,
    Model,
    accurate_sum,
    acos,
    atan2,
    cis,
    complex,
    constant,
    dot,
    matmul,
    matrix,
    matvec,
    parameter,
    polar_complex,
    read_parquet,
    scalar,
    solve,
    vector,
)

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "CompileError",
    "DataError",
    "Error",
    "EvaluationError",
    "FitError",
    "InternalError",
    "ModelError",
    "ParquetSink",
    "Dataset",
    "Execution",
    "Expr",
    "Model",
    "accurate_sum",
    "acos",
    "atan2",
    "cis",
    "complex",
    "constant",
    "dot",
    "matmul",
    "matrix",
    "matvec",
    "parameter",
    "polar_complex",
    "read_parquet",
    "scalar",
    "solve",
    "vector",
]
