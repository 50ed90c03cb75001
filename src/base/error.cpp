#include <laddu/base/error.hpp>

namespace laddu {

std::string_view error_kind_name(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::kModel:
        return "ModelError";
    case ErrorKind::kCompile:
        return "CompileError";
    case ErrorKind::kData:
        return "DataError";
    case ErrorKind::kEvaluation:
        return "EvaluationError";
    case ErrorKind::kBackend:
        return "BackendError";
    case ErrorKind::kFit:
        return "FitError";
    case ErrorKind::kInternal:
        return "InternalError";
    }
    return "Error";
}

void throw_error(ErrorKind kind, const std::string& message) {
    switch (kind) {
    case ErrorKind::kModel:
        throw ModelError(message);
    case ErrorKind::kCompile:
        throw CompileError(message);
    case ErrorKind::kData:
        throw DataError(message);
    case ErrorKind::kEvaluation:
        throw EvaluationError(message);
    case ErrorKind::kBackend:
        throw BackendError(message);
    case ErrorKind::kFit:
        throw FitError(message);
    case ErrorKind::kInternal:
        break;
    }
    throw InternalError(message);
}

}  // namespace laddu
