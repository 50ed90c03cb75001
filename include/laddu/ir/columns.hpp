// laddu/ir/columns.hpp: borrowed structure-of-arrays views of a program's inputs and outputs.
//
// Every input slot of a program is one column indexed by event: a Real slot is one array of
// doubles, a Complex slot two (re and im, split so that loops over events vectorise). The
// views borrow; the caller keeps the arrays alive while a run uses them.
#pragma once

#include <cstddef>
#include <span>

#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// One input column: `re[event]` and, for a Complex slot, `im[event]` (nullptr for Real).
///
/// A column may instead be stored in float (`re32`, `im32`, with `re` and `im` nullptr): an
/// f32 cache holds half the bytes, and f32 programs round what they load to float anyway, so
/// they give the same bits from either. Only f32 programs read float columns
/// (the interpreter rejects them for f64 programs).
struct InputColumn {
    const double* re = nullptr;
    const double* im = nullptr;
    const float* re32 = nullptr;
    const float* im32 = nullptr;

    /// True when the column is stored in float.
    [[nodiscard]] bool is_f32() const noexcept { return re32 != nullptr; }
};

/// The input columns of a program, one per input slot in slot order, each holding `events`
/// values (indexed by global event index 0 .. events-1).
struct ColumnView {
    std::span<const InputColumn> columns;
    std::size_t events = 0;
};

/// One output destination: a block run writes `re[lane]` and, when `im` is not nullptr,
/// `im[lane]` (0 for a Real output) for lane 0 .. count-1 of the block.
struct OutputColumn {
    double* re = nullptr;
    double* im = nullptr;
};

/// The destinations of a program's outputs, one per output in order.
struct OutputView {
    std::span<const OutputColumn> columns;
};

/// Throws DataError unless `inputs` suits `program` run in `precision`: one column per input
/// slot, each with data when there are events, an imaginary part for a Complex slot, and float
/// columns only for f32.
void check_inputs(const Program& program, Precision precision, const ColumnView& inputs);

}  // namespace laddu::ir
