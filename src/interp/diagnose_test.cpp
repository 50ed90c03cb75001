#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>

namespace laddu::interp {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

// Real input columns "x" and "y" (as many as the program reads) with the given values.
struct Columns {
    std::vector<std::vector<double>> values;
    std::vector<ir::InputColumn> columns;

    Columns(std::initializer_list<std::vector<double>> v) : values(v) {
        for (const std::vector<double>& column : values) {
            columns.push_back(ir::InputColumn{column.data(), nullptr});
        }
    }

    Columns(const Columns&) = delete;  // `columns` points into `values`
    Columns& operator=(const Columns&) = delete;
    Columns(Columns&&) = delete;
    Columns& operator=(Columns&&) = delete;
    ~Columns() = default;

    [[nodiscard]] ir::ColumnView view() const { return {columns, values.front().size()}; }
};

std::string diagnose(const ir::Program& program, const Columns& data, std::size_t row,
                     std::span<const double> params = {},
                     ir::Precision precision = ir::Precision::kF64,
                     std::optional<std::size_t> output = std::nullopt) {
    const auto found =
        Interpreter::prepare(program, precision).diagnose_event(params, data.view(), row, output);
    return found ? found->description : "(finite)";
}

// x = [[x, 1], [2, y]]⁻¹ (1, 1): singular where x y = 2.
ir::Program solve_program() {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    const ValueId one = b.const_real(1.0);
    const std::vector<ValueId> system{x, one, b.const_real(2.0), y, one, one};
    const ValueId s = b.solve(2, 1, system);
    b.add_output(b.unary(OpCode::kNormSqr, b.extract(s, 0)));
    return b.finish();
}

TEST(DiagnoseEvent, ASingularPerEventMatrixIsNamedWithItsSizeAndEntries) {
    const ir::Program program = solve_program();
    const Columns data({{0.5, 1.0, 4.0}, {1.0, 2.0, 1.0}});
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        SCOPED_TRACE(precision_name(precision));
        EXPECT_EQ(diagnose(program, data, 0, {}, precision), "(finite)");
        EXPECT_EQ(diagnose(program, data, 1, {}, precision),
                  "solve of a 2x2 matrix is singular: [[1, 1], [2, 2]]");
        EXPECT_EQ(diagnose(program, data, 2, {}, precision), "(finite)");
    }
    const auto found = Interpreter::prepare(program).diagnose_event({}, data.view(), 1);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(program.at(found->value).op, OpCode::kSolve);
    EXPECT_FALSE(found->input.has_value());
}

TEST(DiagnoseEvent, NamesTheOperationAndItsOperands) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.unary(OpCode::kSqrt, x));
    b.add_output(b.unary(OpCode::kLog, x));
    b.add_output(b.binary(OpCode::kDiv, b.const_real(1.0), x));
    const ir::Program program = b.finish();
    const Columns data({{-1.0, 0.0, 0.25}});
    EXPECT_EQ(diagnose(program, data, 0, {}, ir::Precision::kF64, 0), "sqrt(-1) is nan");
    EXPECT_EQ(diagnose(program, data, 1, {}, ir::Precision::kF64, 1), "log(0) is -inf");
    EXPECT_EQ(diagnose(program, data, 1, {}, ir::Precision::kF64, 2), "1 / 0 is inf");
    EXPECT_EQ(diagnose(program, data, 2), "(finite)");
    // Without an output named, the earliest cause of any bad output: the sqrt, not log(-1).
    EXPECT_EQ(diagnose(program, data, 0), "sqrt(-1) is nan");
    // f32 values print as floats.
    const Columns tenth({{-0.1}});
    EXPECT_EQ(diagnose(program, tenth, 0, {}, ir::Precision::kF32, 0), "sqrt(-0.1) is nan");
    EXPECT_EQ(diagnose(program, tenth, 0, {}, ir::Precision::kF64, 0), "sqrt(-0.1) is nan");
}

TEST(DiagnoseEvent, FollowsTheBadOutputBackNotAnUnrelatedOverflow) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    // exp(1000 x) overflows first, but output 1 is NaN because of the sqrt.
    b.add_output(b.unary(OpCode::kExp, b.binary(OpCode::kMul, b.const_real(1000.0), x)));
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kSqrt, b.unary(OpCode::kNeg, x)), x));
    const ir::Program program = b.finish();
    const Columns data({{4.0}});
    EXPECT_EQ(diagnose(program, data, 0, {}, ir::Precision::kF64, 1), "sqrt(-4) is nan");
    EXPECT_EQ(diagnose(program, data, 0, {}, ir::Precision::kF64, 0), "exp(4000) is inf");
}

TEST(DiagnoseEvent, ABadInputOrParameterIsNamedAsSuch) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId y = b.load(b.add_input("y", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kMul, b.unary(OpCode::kSin, x), b.param(0)));
    b.add_output(y);  // an output read in place
    const ir::Program program = b.finish();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Columns data({{nan, 1.0}, {1.0, -std::numeric_limits<double>::infinity()}});
    const std::vector<double> one{1.0};
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        SCOPED_TRACE(precision_name(precision));
        const Interpreter interp = Interpreter::prepare(program, precision);
        const auto found = interp.diagnose_event(one, data.view(), 0, 0);
        ASSERT_TRUE(found.has_value());
        EXPECT_EQ(found->description, "input 'x' is nan");
        EXPECT_EQ(found->input, 0U);
        EXPECT_EQ(interp.diagnose_event(one, data.view(), 1, 1)->description, "input 'y' is -inf");
    }
    const std::vector<double> bad_parameter{-nan};
    EXPECT_EQ(diagnose(program, Columns({{1.0}, {1.0}}), 0, bad_parameter), "parameter 0 is nan");
}

TEST(DiagnoseEvent, AParameterOnlyCauseSaysItHoldsForEveryEvent) {
    Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId p = b.param(0);
    // [[p, 1], [1, 1]] is singular at p = 1, whatever the event.
    const ValueId one = b.const_real(1.0);
    const std::vector<ValueId> system{p, one, one, one, one, one};
    const ValueId solved = b.unary(OpCode::kReal, b.extract(b.solve(2, 1, system), 1));
    b.add_output(b.binary(OpCode::kMul, solved, x));
    const ir::Program program = b.finish();
    const Columns data({{0.5, 2.0}});
    const std::vector<double> singular{1.0};
    EXPECT_EQ(diagnose(program, data, 1, singular),
              "solve of a 2x2 matrix is singular: [[1, 1], [1, 1]] (at these parameter values, "
              "for every event)");
    const std::vector<double> regular{3.0};
    EXPECT_EQ(diagnose(program, data, 1, regular), "(finite)");
}

TEST(DiagnoseEvent, ComplexOperandsAndLargeSolves) {
    Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    b.add_output(b.binary(OpCode::kDiv, b.const_complex(1.0, 0.0), z));
    std::vector<ValueId> system;
    for (int k = 0; k < 20; ++k) {
        system.push_back(z);  // a 4x4 of equal entries, and a 4x1 right-hand side
    }
    b.add_output(b.extract(b.solve(4, 1, system), 0));
    const ir::Program program = b.finish();
    const std::vector<double> re{0.0};
    const std::vector<double> im{0.0};
    const std::vector<ir::InputColumn> columns{ir::InputColumn{re.data(), im.data()}};
    const Interpreter interp = Interpreter::prepare(program);
    EXPECT_EQ(interp.diagnose_event({}, ir::ColumnView{columns, 1}, 0, 0)->description,
              "(1+0i) / (0+0i) is (nan+nani)");
    EXPECT_EQ(interp.diagnose_event({}, ir::ColumnView{columns, 1}, 0, 1)->description,
              "solve of a 4x4 matrix is singular");
}

TEST(DiagnoseEvent, ChecksItsArguments) {
    const ir::Program program = solve_program();
    const Columns data({{0.5}, {1.0}});
    const Interpreter interp = Interpreter::prepare(program);
    EXPECT_THROW((void)interp.diagnose_event({}, data.view(), 1), DataError);
    const std::vector<double> extra{1.0};
    EXPECT_THROW((void)interp.diagnose_event(extra, data.view(), 0), EvaluationError);
    EXPECT_THROW((void)interp.diagnose_event({}, data.view(), 0, 1), DataError);
}

}  // namespace
}  // namespace laddu::interp
