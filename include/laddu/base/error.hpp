// laddu/base/error.hpp: the exception tree every stage throws from.
//
// A user error ends the operation with one of these; its message says what is wrong and how to
// fix it. Python sees the same names (laddu_cpp.ModelError, ...) under laddu_cpp.Error.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace laddu {

/// Which branch of the exception tree an error belongs to; carried by Expected<T> failures.
enum class ErrorKind : unsigned char {
    kModel,       ///< an ill-formed model: wrong kinds, unknown or conflicting parameters
    kCompile,     ///< the compiler could not lower or plan a model
    kData,        ///< missing columns, malformed files, bad array shapes
    kEvaluation,  ///< a numerical failure during evaluation (non-positive intensity, singular
                  ///< matrix)
    kBackend,     ///< a backend (interpreter, JIT, MPI) cannot run the program
    kFit,         ///< a minimiser could not be set up or run
    kInternal,    ///< a broken invariant inside laddu (a bug: please report it)
};

/// The stable name of an error kind ("ModelError", ...), as the Python exception is named.
[[nodiscard]] std::string_view error_kind_name(ErrorKind kind) noexcept;

/// Base of every laddu exception.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, ErrorKind kind = ErrorKind::kInternal)
        : std::runtime_error(message), kind_(kind) {}

    /// The branch of the tree this error belongs to.
    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

/// An ill-formed model: a shape mismatch, an unknown parameter, conflicting definitions.
class ModelError : public Error {
public:
    explicit ModelError(const std::string& message) : Error(message, ErrorKind::kModel) {}
};

/// The compiler could not turn a model into a program.
class CompileError : public Error {
public:
    explicit CompileError(const std::string& message) : Error(message, ErrorKind::kCompile) {}
};

/// Event data is missing, malformed or of the wrong shape.
class DataError : public Error {
public:
    explicit DataError(const std::string& message) : Error(message, ErrorKind::kData) {}
};

/// Evaluation failed numerically (a non-positive intensity under a log, a singular matrix).
class EvaluationError : public Error {
public:
    explicit EvaluationError(const std::string& message) : Error(message, ErrorKind::kEvaluation) {}
};

/// A backend cannot run the program (JIT unavailable, MPI failure on a peer).
class BackendError : public Error {
public:
    explicit BackendError(const std::string& message) : Error(message, ErrorKind::kBackend) {}
};

/// A fit could not be set up or run (a non-convergence is a result, not this error).
class FitError : public Error {
public:
    explicit FitError(const std::string& message) : Error(message, ErrorKind::kFit) {}
};

/// A broken internal invariant, raised by LADDU_ASSERT. Seeing one is a bug in laddu.
class InternalError : public Error {
public:
    explicit InternalError(const std::string& message) : Error(message, ErrorKind::kInternal) {}
};

/// Throws the exception class matching `kind` with `message`.
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

}  // namespace laddu
