#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/columns.hpp>

namespace laddu::ir {

void check_inputs(const Program& program, Precision precision, const ColumnView& inputs) {
    const auto& slots = program.inputs;
    if (inputs.columns.size() != slots.size()) {
        throw DataError(fmt::format("the program reads {} input columns, but {} were given",
                                    slots.size(), inputs.columns.size()));
    }
    for (std::size_t slot = 0; slot < slots.size(); ++slot) {
        const InputColumn& column = inputs.columns[slot];
        if (column.is_f32() && precision == Precision::kF64) {
            throw DataError(fmt::format("input column {} ('{}') is stored in float, which only "
                                        "f32 programs read; run the program in f32 "
                                        "or pass double columns",
                                        slot, slots[slot].name));
        }
        if (inputs.events > 0 && column.re == nullptr && column.re32 == nullptr) {
            throw DataError(
                fmt::format("input column {} ('{}') has no data", slot, slots[slot].name));
        }
        if (inputs.events > 0 && slots[slot].kind == ValueKind::kComplex &&
            (column.is_f32() ? column.im32 == nullptr : column.im == nullptr)) {
            throw DataError(fmt::format("input column {} ('{}') is Complex but has no imaginary "
                                        "part; pass both re and im arrays",
                                        slot, slots[slot].name));
        }
    }
}

}  // namespace laddu::ir
