#include <laddu/ir/program.hpp>

namespace laddu::ir {

namespace {

struct OpNames {
    std::string_view name;
    std::string_view mnemonic;
};

// Indexed by OpCode; the static_assert below keeps it in step with the enum.
constexpr OpNames kOpNames[] = {
    {"kConstReal", "const"},  {"kConstComplex", "const"},
    {"kParam", "param"},      {"kLoad", "load"},
    {"kNeg", "neg"},          {"kConj", "conj"},
    {"kSqrt", "sqrt"},        {"kExp", "exp"},
    {"kLog", "log"},          {"kSin", "sin"},
    {"kCos", "cos"},          {"kTan", "tan"},
    {"kAsin", "asin"},        {"kAcos", "acos"},
    {"kAtan", "atan"},        {"kSinh", "sinh"},
    {"kCosh", "cosh"},        {"kTanh", "tanh"},
    {"kReal", "real"},        {"kImag", "imag"},
    {"kAbs", "abs"},          {"kArg", "arg"},
    {"kNormSqr", "norm_sqr"}, {"kPowI", "powi"},
    {"kAdd", "add"},          {"kSub", "sub"},
    {"kMul", "mul"},          {"kDiv", "div"},
    {"kPow", "pow"},          {"kAtan2", "atan2"},
    {"kAddN", "add_n"},       {"kMulN", "mul_n"},
    {"kComplex", "complex"},  {"kDot", "dot"},
    {"kSolve", "solve"},      {"kExtract", "extract"},
};

static_assert(std::size(kOpNames) == kOpCodeCount, "kOpNames must list every OpCode");

}  // namespace

std::string_view opcode_name(OpCode op) noexcept {
    const auto index = static_cast<std::size_t>(op);
    return index < kOpCodeCount ? kOpNames[index].name : std::string_view("kInvalid");
}

std::string_view opcode_mnemonic(OpCode op) noexcept {
    const auto index = static_cast<std::size_t>(op);
    return index < kOpCodeCount ? kOpNames[index].mnemonic : std::string_view("invalid");
}

std::string_view kind_name(ValueKind kind) noexcept {
    switch (kind) {
    case ValueKind::kReal:
        return "Real";
    case ValueKind::kComplex:
        return "Complex";
    case ValueKind::kVector:
        return "Vector";
    }
    return "InvalidKind";
}

std::string_view class_name(ValueClass cls) noexcept {
    switch (cls) {
    case ValueClass::kInvariant:
        return "invariant";
    case ValueClass::kEvent:
        return "event";
    }
    return "invalid";
}

std::vector<char> live_instructions(const Program& program, std::span<const ValueId> roots) {
    std::vector<char> live(program.size(), 0);
    for (const ValueId root : roots) {
        live[to_index(root)] = 1;
    }
    for (std::size_t i = program.size(); i-- > 0;) {
        if (live[i] == 0) {
            continue;
        }
        for (const ValueId operand : program.operands_of(program.instructions[i])) {
            live[to_index(operand)] = 1;
        }
    }
    return live;
}

}  // namespace laddu::ir
