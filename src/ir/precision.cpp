#include <laddu/ir/precision.hpp>

namespace laddu::ir {

const char* precision_name(Precision precision) noexcept {
    return precision == Precision::kF32 ? "f32" : "f64";
}

}  // namespace laddu::ir
