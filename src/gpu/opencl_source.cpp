// lower_to_opencl(): an ir::Program as OpenCL C, two kernels (three with doubles: laddu_reduce,
// reduction_source.cpp, sums the outputs on the device). laddu_invariants runs the
// invariant instructions once per launch on one work-item and stores the values event code and
// outputs read in a small buffer (a gradient program has hundreds of invariants: evaluated per
// work-item they cost more than the event code); laddu_kernel runs one work-item per event: it
// reads those values, runs the event instructions and stores the outputs. Every complex
// operation calls a helper whose body is docs/ir.md's formula, and the source turns contraction
// off, so the device rounds each operation as the interpreter does; library functions (sin,
// exp, pow, ...) come from the device's OpenCL math library, a few ulp from glibc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/gpu/gpu.hpp>
#include <laddu/ir/validate.hpp>

#include "lower.hpp"

namespace laddu::gpu {

namespace {

using ir::OpCode;
using ir::ValueClass;
using ir::ValueKind;

// The complex helpers for one arithmetic type: $T is the type, $S its suffix, $E its epsilon
// and $P its pi/2. The transcendental functions follow glibc's algorithms (csqrt, clog near
// |z| = 1, ctanh, catan) closely enough to stay within a few ulp of it.
constexpr std::string_view kComplexHelpers = R"CL(
typedef struct { $T re; $T im; } cx_$S;
cx_$S mk_$S($T re, $T im) { cx_$S z; z.re = re; z.im = im; return z; }
cx_$S cadd_$S(cx_$S a, cx_$S b) { return mk_$S(a.re + b.re, a.im + b.im); }
cx_$S csub_$S(cx_$S a, cx_$S b) { return mk_$S(a.re - b.re, a.im - b.im); }
cx_$S cmul_$S(cx_$S a, cx_$S b) { return mk_$S(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
cx_$S cdiv_$S(cx_$S a, cx_$S b) {
    $T d = b.re * b.re + b.im * b.im;
    return mk_$S((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);
}
cx_$S crecip_$S(cx_$S b) { $T d = b.re * b.re + b.im * b.im; return mk_$S(b.re / d, -b.im / d); }
cx_$S rcadd_$S($T x, cx_$S b) { return mk_$S(x + b.re, b.im); }
cx_$S cradd_$S(cx_$S a, $T y) { return mk_$S(a.re + y, a.im); }
cx_$S rcsub_$S($T x, cx_$S b) { return mk_$S(x - b.re, -b.im); }
cx_$S crsub_$S(cx_$S a, $T y) { return mk_$S(a.re - y, a.im); }
cx_$S rcmul_$S($T x, cx_$S b) { return mk_$S(x * b.re, x * b.im); }
cx_$S crmul_$S(cx_$S a, $T y) { return mk_$S(a.re * y, a.im * y); }
cx_$S rcdiv_$S($T x, cx_$S b) {
    $T d = b.re * b.re + b.im * b.im;
    return mk_$S((x * b.re) / d, -(x * b.im) / d);
}
cx_$S crdiv_$S(cx_$S a, $T y) { return mk_$S(a.re / y, a.im / y); }
cx_$S csqrt_$S(cx_$S z) {
    $T x = z.re, y = z.im;
    if (y == ($T)0) {
        if (x < ($T)0) return mk_$S(($T)0, copysign(sqrt(-x), y));
        return mk_$S(fabs(sqrt(x)), copysign(($T)0, y));
    }
    $T d = hypot(x, y);
    if (x > ($T)0) {
        $T r = sqrt(($T)0.5 * (d + x));
        return mk_$S(r, ($T)0.5 * (y / r));
    }
    $T s = sqrt(($T)0.5 * (d - x));
    return mk_$S(fabs(($T)0.5 * (y / s)), copysign(s, y));
}
cx_$S cexp_$S(cx_$S z) {
    $T e = exp(z.re);
    if (z.im == ($T)0) return mk_$S(e, z.im);
    return mk_$S(e * cos(z.im), e * sin(z.im));
}
cx_$S clog_$S(cx_$S z) {
    $T ax = fabs(z.re), ay = fabs(z.im);
    if (ax < ay) { $T t = ax; ax = ay; ay = t; }
    $T re;
    if (ax == ($T)1) {
        re = ($T)0.5 * log1p(ay * ay);
    } else if ((ax > ($T)1 && ax < ($T)2 && ay < ($T)1) ||
               (ax < ($T)1 && ax >= ($T)0.5 && ax * ax + ay * ay >= ($T)0.5)) {
        re = ($T)0.5 * log1p((ax - ($T)1) * (ax + ($T)1) + ay * ay);
    } else {
        re = log(hypot(z.re, z.im));
    }
    return mk_$S(re, atan2(z.im, z.re));
}
cx_$S csinh_$S(cx_$S z) { return mk_$S(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)); }
cx_$S ccosh_$S(cx_$S z) { return mk_$S(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)); }
cx_$S csin_$S(cx_$S z) { return mk_$S(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); }
cx_$S ccos_$S(cx_$S z) { return mk_$S(cos(z.re) * cosh(-z.im), sin(z.re) * sinh(-z.im)); }
cx_$S ctanh_$S(cx_$S z) {
    $T x = z.re;
    $T s = sin(z.im), c = cos(z.im);
    if (fabs(x) > $BIG) return mk_$S(copysign(($T)1, x), ($T)4 * s * c * exp(($T)-2 * fabs(x)));
    $T sh = sinh(x), ch = cosh(x);
    $T den = fabs(sh) > fabs(c) * $E ? sh * sh + c * c : c * c;
    return mk_$S(sh * ch / den, s * c / den);
}
cx_$S ctan_$S(cx_$S z) {
    cx_$S t = ctanh_$S(mk_$S(-z.im, z.re));
    return mk_$S(t.im, -t.re);
}
cx_$S casinh_$S(cx_$S z) {
    int neg = signbit(z.re);
    cx_$S w = neg ? mk_$S(-z.re, -z.im) : z;
    cx_$S w2 = mk_$S((w.re - w.im) * (w.re + w.im) + ($T)1, ($T)2 * w.re * w.im);
    cx_$S r = clog_$S(cadd_$S(w, csqrt_$S(w2)));
    return neg ? mk_$S(-r.re, -r.im) : r;
}
cx_$S casin_$S(cx_$S z) {
    cx_$S t = casinh_$S(mk_$S(-z.im, z.re));
    return mk_$S(t.im, -t.re);
}
cx_$S cacos_$S(cx_$S z) {
    cx_$S t = casin_$S(z);
    $T re = $P - t.re;
    return mk_$S(re == ($T)0 ? ($T)0 : re, -t.im);
}
cx_$S catan_$S(cx_$S z) {
    $T ax = fabs(z.re), ay = fabs(z.im);
    if (ax < ay) { $T t = ax; ax = ay; ay = t; }
    $T den;
    if (ay < $E / ($T)2) {
        den = (($T)1 - ax) * (($T)1 + ax);
    } else {
        den = (($T)1 - ax) * (($T)1 + ax) - ay * ay;
    }
    $T re = ($T)0.5 * atan2(($T)2 * z.re, den);
    $T r2 = fabs(z.re) >= $E * $E ? z.re * z.re : ($T)0;
    $T num = z.im + ($T)1;
    num = r2 + num * num;
    $T d2 = z.im - ($T)1;
    d2 = r2 + d2 * d2;
    $T f = num / d2;
    $T im = f < ($T)0.5 ? ($T)0.25 * log(f) : ($T)0.25 * log1p(($T)4 * z.im / d2);
    return mk_$S(re, im);
}
cx_$S cpow_$S(cx_$S a, cx_$S b, int b_complex) {
    cx_$S l = clog_$S(a);
    return cexp_$S(b_complex ? cmul_$S(b, l) : crmul_$S(l, b.re));
}
$T norm1_$S(cx_$S z) { return fabs(z.re) + fabs(z.im); }
int solve_$S(cx_$S* a, cx_$S* b, int* swaps, int n, int m) {
    for (int k = 0; k < n; ++k) {
        int pivot = k;
        $T best = norm1_$S(a[k * n + k]);
        for (int i = k + 1; i < n; ++i) {
            $T v = norm1_$S(a[i * n + k]);
            if (v > best) { best = v; pivot = i; }
        }
        swaps[k] = pivot;
        if (best == ($T)0) continue;
        if (pivot != k) {
            for (int j = 0; j < n; ++j) {
                cx_$S t = a[k * n + j]; a[k * n + j] = a[pivot * n + j]; a[pivot * n + j] = t;
            }
        }
        cx_$S inv = crecip_$S(a[k * n + k]);
        for (int i = k + 1; i < n; ++i) a[i * n + k] = cmul_$S(a[i * n + k], inv);
        for (int j = k + 1; j < n; ++j) {
            cx_$S u = a[k * n + j];
            for (int i = k + 1; i < n; ++i) a[i * n + j] = csub_$S(a[i * n + j], cmul_$S(a[i * n + k], u));
        }
    }
    for (int c = 0; c < m; ++c) {
        cx_$S* r = b + c * n;
        for (int k = 0; k < n; ++k) {
            if (swaps[k] != k) { cx_$S t = r[k]; r[k] = r[swaps[k]]; r[swaps[k]] = t; }
        }
        for (int j = 0; j < n; ++j) {
            for (int i = j + 1; i < n; ++i) r[i] = csub_$S(r[i], cmul_$S(a[i * n + j], r[j]));
        }
        for (int j = n - 1; j >= 0; --j) {
            cx_$S d = a[j * n + j];
            if (d.re == ($T)0 && d.im == ($T)0) return 0;
            r[j] = cdiv_$S(r[j], d);
            for (int i = 0; i < j; ++i) r[i] = csub_$S(r[i], cmul_$S(a[i * n + j], r[j]));
        }
    }
    return 1;
}
)CL";

// One arithmetic type of the generated code.
struct Type {
    std::string_view name;    // "double" or "float"
    std::string_view suffix;  // "d" or "f"
};

constexpr Type kDouble{"double", "d"};
constexpr Type kFloat{"float", "f"};

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

std::string helpers_for(Type type) {
    const bool d = type.suffix == "d";
    std::string text(kComplexHelpers);
    text = replace_all(text, "$T", type.name);
    text = replace_all(text, "$S", type.suffix);
    // ctanh's cut-over, glibc's (int)((MAX_EXP - 1) * ln 2 / 2).
    text = replace_all(text, "$BIG", d ? "354.0" : "44.0f");
    text = replace_all(text, "$E", d ? "DBL_EPSILON" : "FLT_EPSILON");
    text = replace_all(text, "$P", d ? "M_PI_2" : "M_PI_2_F");
    return text;
}

class Emitter {
public:
    Emitter(const ir::Program& program, ir::Precision precision, bool fp64)
        : program_(program), event_(precision == ir::Precision::kF64 ? kDouble : kFloat),
          invariant_(fp64 ? kDouble : kFloat), fp64_(fp64) {}

    std::string run();

    // Elements of the invariant buffer (after run()).
    [[nodiscard]] std::size_t invariant_slots() const noexcept { return invariant_slots_; }

private:
    [[nodiscard]] const Type& type_of(ValueClass cls) const {
        return cls == ValueClass::kInvariant ? invariant_ : event_;
    }

    [[nodiscard]] bool is_complex(ir::ValueId id) const {
        return program_.at(id).kind == ValueKind::kComplex;
    }

    // The name of `id` as an instruction of class `cls` reads it: event code reads an invariant
    // through its narrowed copy when the two types differ.
    [[nodiscard]] std::string name(ir::ValueId id, ValueClass cls) const {
        const std::uint32_t k = ir::to_index(id);
        if (cls == ValueClass::kEvent && program_.at(id).cls == ValueClass::kInvariant &&
            invariant_.suffix != event_.suffix) {
            return fmt::format("n{}", k);
        }
        return fmt::format("v{}", k);
    }

    [[nodiscard]] std::string re(ir::ValueId id, ValueClass cls) const {
        return is_complex(id) ? name(id, cls) + ".re" : name(id, cls);
    }

    [[nodiscard]] std::string zero(ValueClass cls) const {
        return fmt::format("({})0", type_of(cls).name);
    }

    [[nodiscard]] std::string im(ir::ValueId id, ValueClass cls) const {
        return is_complex(id) ? name(id, cls) + ".im" : zero(cls);
    }

    // `id` widened to complex (x + 0i).
    [[nodiscard]] std::string cx(ir::ValueId id, ValueClass cls) const {
        if (is_complex(id)) {
            return name(id, cls);
        }
        return fmt::format("mk_{}({}, {})", type_of(cls).suffix, name(id, cls), zero(cls));
    }

    [[nodiscard]] std::string literal(double value, const Type& type) const;
    void instruction(std::uint32_t index);
    [[nodiscard]] std::string arithmetic(OpCode op, const std::string& a, bool ac,
                                         const std::string& b, bool bc, const Type& type) const;
    [[nodiscard]] std::string complex_function(std::string_view fn, const std::string& arg,
                                               ValueClass cls) const;
    void emit_fold(std::uint32_t index, const ir::Instruction& inst);
    void emit_dot(std::uint32_t index, const ir::Instruction& inst);
    void emit_pow_i(std::uint32_t index, const ir::Instruction& inst);
    void emit_solve(std::uint32_t index, const ir::Instruction& inst);
    void unary(std::uint32_t index);
    [[nodiscard]] static std::string_view function_name(OpCode op);
    void collect_needed();
    [[nodiscard]] std::string invariant_kernel();
    [[nodiscard]] std::string event_kernel();
    void declare(std::uint32_t index, const std::string& expression);

    const ir::Program& program_;
    Type event_;
    Type invariant_;
    bool fp64_;
    std::string body_;
    std::vector<std::uint32_t> needed_;
    std::vector<bool> event_reads_;
    std::size_t invariant_slots_ = 0;
};

std::string Emitter::literal(double value, const Type& type) const {
    if (std::isnan(value)) {
        return fmt::format("({})NAN", type.name);
    }
    if (std::isinf(value)) {
        return fmt::format("({}){}INFINITY", type.name, value < 0 ? "-" : "");
    }
    // Hexadecimal literals are exact; a float literal is the correctly rounded double.
    return fmt::format("{:a}{}", value, type.suffix == "f" ? "f" : "");
}

void Emitter::declare(std::uint32_t index, const std::string& expression) {
    const ir::Instruction& inst = program_.instructions[index];
    const Type& type = type_of(inst.cls);
    const bool complex = inst.kind == ValueKind::kComplex;
    body_ += fmt::format("    const {}{} v{} = {};\n", complex ? "cx_" : "",
                         complex ? type.suffix : type.name, index, expression);
}

// a op b by docs/ir.md's formula for the operand kinds.
std::string Emitter::arithmetic(OpCode op, const std::string& a, bool ac, const std::string& b,
                                bool bc, const Type& type) const {
    const std::string_view s = type.suffix;
    if (!ac && !bc) {
        const char* symbol = op == OpCode::kAdd   ? "+"
                             : op == OpCode::kSub ? "-"
                             : op == OpCode::kMul ? "*"
                                                  : "/";
        return fmt::format("({} {} {})", a, symbol, b);
    }
    const char* fn = op == OpCode::kAdd   ? "add"
                     : op == OpCode::kSub ? "sub"
                     : op == OpCode::kMul ? "mul"
                                          : "div";
    const char* pattern = ac && bc ? "c" : ac ? "cr" : "rc";
    return fmt::format("{}{}_{}({}, {})", pattern, fn, s, a, b);
}

// A complex library function of one value; f32 event code calls the double version when the
// device has doubles (as the JIT does) and rounds the result.
std::string Emitter::complex_function(std::string_view fn, const std::string& arg,
                                      ValueClass cls) const {
    if (cls == ValueClass::kEvent && event_.suffix == "f" && fp64_) {
        return fmt::format("narrow_df(c{}_d(widen_fd({})))", fn, arg);
    }
    return fmt::format("c{}_{}({})", fn, type_of(cls).suffix, arg);
}

void Emitter::emit_fold(std::uint32_t index, const ir::Instruction& inst) {
    const auto ops = program_.operands_of(inst);
    const Type& type = type_of(inst.cls);
    const OpCode step = inst.op == OpCode::kAddN ? OpCode::kAdd : OpCode::kMul;
    // The accumulator stays Real until the first Complex operand (docs/ir.md).
    std::string acc = name(ops[0], inst.cls);
    bool acc_complex = is_complex(ops[0]);
    for (std::size_t k = 1; k < ops.size(); ++k) {
        const bool bc = is_complex(ops[k]);
        const std::string next =
            arithmetic(step, acc, acc_complex, name(ops[k], inst.cls), bc, type);
        acc_complex = acc_complex || bc;
        const std::string tmp = fmt::format("t{}_{}", index, k);
        body_ += fmt::format("    const {}{} {} = {};\n", acc_complex ? "cx_" : "",
                             acc_complex ? type.suffix : type.name, tmp, next);
        acc = tmp;
    }
    declare(index, acc);
}

// docs/ir.md's kDot, as the interpreter's dot_step: term 0 by the kMul formula, every later
// real product fused into its part with fma() (correctly rounded in OpenCL C, as std::fma); a
// part the accumulator lacks starts from a plain product.
void Emitter::emit_dot(std::uint32_t index, const ir::Instruction& inst) {
    const auto ops = program_.operands_of(inst);
    const Type& type = type_of(inst.cls);
    const std::uint32_t n = inst.attr;
    auto part = [&](ir::ValueId id, const char* which) {
        return is_complex(id) ? fmt::format("{}.{}", name(id, inst.cls), which)
                              : name(id, inst.cls);
    };
    const bool first_complex = is_complex(ops[0]) || is_complex(ops[n]);
    body_ += fmt::format("    {}{} t{}_0 = {};\n", first_complex ? "cx_" : "",
                         first_complex ? type.suffix : type.name, index,
                         arithmetic(OpCode::kMul, name(ops[0], inst.cls), is_complex(ops[0]),
                                    name(ops[n], inst.cls), is_complex(ops[n]), type));
    std::string re = first_complex ? fmt::format("t{}_0.re", index) : fmt::format("t{}_0", index);
    std::string im = first_complex ? fmt::format("t{}_0.im", index) : std::string();
    body_ += fmt::format("    {} dot{}_re = {};\n", type.name, index, re);
    re = fmt::format("dot{}_re", index);
    if (!im.empty()) {
        body_ += fmt::format("    {} dot{}_im = {};\n", type.name, index, im);
        im = fmt::format("dot{}_im", index);
    }
    const std::string im_name = fmt::format("dot{}_im", index);
    // im's next contribution p·q: fused when the accumulator has an imaginary part.
    auto into_im = [&](const std::string& p, const std::string& q) {
        if (im.empty()) {
            body_ += fmt::format("    {} {} = {} * {};\n", type.name, im_name, p, q);
            im = im_name;
        } else {
            body_ += fmt::format("    {0} = fma({1}, {2}, {0});\n", im, p, q);
        }
    };
    for (std::uint32_t k = 1; k < n; ++k) {
        const ir::ValueId a = ops[k];
        const ir::ValueId b = ops[n + k];
        body_ += fmt::format("    {0} = fma({1}, {2}, {0});\n", re, part(a, "re"), part(b, "re"));
        if (is_complex(a) && is_complex(b)) {
            body_ +=
                fmt::format("    {0} = fma(-{1}, {2}, {0});\n", re, part(a, "im"), part(b, "im"));
            into_im(part(a, "re"), part(b, "im"));
            body_ +=
                fmt::format("    {0} = fma({1}, {2}, {0});\n", im, part(a, "im"), part(b, "re"));
        } else if (is_complex(a)) {
            into_im(part(a, "im"), part(b, "re"));
        } else if (is_complex(b)) {
            into_im(part(a, "re"), part(b, "im"));
        }
    }
    declare(index, im.empty() ? re : fmt::format("mk_{}({}, {})", type.suffix, re, im));
}

// Binary powering unrolled for the constant exponent, first factor taken as is.
void Emitter::emit_pow_i(std::uint32_t index, const ir::Instruction& inst) {
    const ir::ValueId a = program_.operands_of(inst)[0];
    const Type& type = type_of(inst.cls);
    const bool c = is_complex(a);
    const std::int32_t n = inst.exponent();
    const std::string one = c ? fmt::format("mk_{0}(({1})1, ({1})0)", type.suffix, type.name)
                              : fmt::format("({})1", type.name);
    if (n == 0) {
        declare(index, one);
        return;
    }
    const std::string decl = c ? fmt::format("cx_{}", type.suffix) : std::string(type.name);
    auto mul = [&](const std::string& x, const std::string& y) {
        return c ? fmt::format("cmul_{}({}, {})", type.suffix, x, y)
                 : fmt::format("({} * {})", x, y);
    };
    std::uint32_t m = n < 0 ? 0U - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
    std::string base = name(a, inst.cls);
    std::string acc;
    std::uint32_t step = 0;
    while (true) {
        if ((m & 1U) != 0) {
            const std::string value = acc.empty() ? base : mul(acc, base);
            acc = fmt::format("p{}_{}", index, step++);
            body_ += fmt::format("    const {} {} = {};\n", decl, acc, value);
        }
        m >>= 1U;
        if (m == 0) {
            break;
        }
        const std::string squared = fmt::format("p{}_{}", index, step++);
        body_ += fmt::format("    const {} {} = {};\n", decl, squared, mul(base, base));
        base = squared;
    }
    if (n < 0) {
        declare(index, c ? fmt::format("crecip_{}({})", type.suffix, acc)
                         : fmt::format("(({})1 / {})", type.name, acc));
    } else {
        declare(index, acc);
    }
}

void Emitter::emit_solve(std::uint32_t index, const ir::Instruction& inst) {
    const auto ops = program_.operands_of(inst);
    const std::string_view s = type_of(inst.cls).suffix;
    const std::uint32_t n = ir::solve_size(inst.attr);
    const std::uint32_t m = ir::solve_rhs_count(inst.attr);
    body_ += fmt::format("    cx_{} a{}[{}];\n    cx_{} v{}[{}];\n    int s{}[{}];\n", s, index,
                         n * n, s, index, n * m, index, n);
    for (std::uint32_t k = 0; k < n * n; ++k) {
        body_ += fmt::format("    a{}[{}] = {};\n", index, k, cx(ops[k], inst.cls));
    }
    for (std::uint32_t k = 0; k < n * m; ++k) {
        body_ += fmt::format("    v{}[{}] = {};\n", index, k, cx(ops[n * n + k], inst.cls));
    }
    body_ +=
        fmt::format("    if (!solve_{0}(a{1}, v{1}, s{1}, {2}, {3})) {{\n"
                    "        for (int k = 0; k < {4}; ++k) v{1}[k] = mk_{0}(NAN, NAN);\n    }}\n",
                    s, index, n, m, n * m);
}

std::string_view Emitter::function_name(OpCode op) {
    std::string_view fn;
    switch (op) {
    case OpCode::kSqrt:
        fn = "sqrt";
        break;
    case OpCode::kExp:
        fn = "exp";
        break;
    case OpCode::kLog:
        fn = "log";
        break;
    case OpCode::kSin:
        fn = "sin";
        break;
    case OpCode::kCos:
        fn = "cos";
        break;
    case OpCode::kTan:
        fn = "tan";
        break;
    case OpCode::kAsin:
        fn = "asin";
        break;
    case OpCode::kAcos:
        fn = "acos";
        break;
    case OpCode::kAtan:
        fn = "atan";
        break;
    case OpCode::kSinh:
        fn = "sinh";
        break;
    case OpCode::kCosh:
        fn = "cosh";
        break;
    case OpCode::kTanh:
        fn = "tanh";
        break;
    default:
        throw InternalError(fmt::format("gpu: no OpenCL lowering for {}", ir::opcode_name(op)));
    }
    return fn;
}

void Emitter::instruction(std::uint32_t index) {
    const ir::Instruction& inst = program_.instructions[index];
    const auto ops = program_.operands_of(inst);
    const ValueClass cls = inst.cls;
    const Type& type = type_of(cls);
    const std::string_view s = type.suffix;
    switch (inst.op) {
    case OpCode::kConstReal:
        declare(index, literal(inst.re, type));
        return;
    case OpCode::kConstComplex:
        declare(index,
                fmt::format("mk_{}({}, {})", s, literal(inst.re, type), literal(inst.im, type)));
        return;
    case OpCode::kParam:
        declare(index, fmt::format("params[{}]", inst.attr));
        return;
    case OpCode::kLoad:
        if (inst.kind == ValueKind::kComplex) {
            declare(index,
                    fmt::format("mk_{0}(({1})in{2}r[e], ({1})in{2}i[e])", s, type.name, inst.attr));
        } else {
            declare(index, fmt::format("({})in{}r[e]", type.name, inst.attr));
        }
        return;
    case OpCode::kAddN:
    case OpCode::kMulN:
        emit_fold(index, inst);
        return;
    case OpCode::kDot:
        emit_dot(index, inst);
        return;
    case OpCode::kPowI:
        emit_pow_i(index, inst);
        return;
    case OpCode::kSolve:
        emit_solve(index, inst);
        return;
    case OpCode::kExtract:
        declare(index, fmt::format("v{}[{}]", ir::to_index(ops[0]), inst.attr));
        return;
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
        declare(index, arithmetic(inst.op, name(ops[0], cls), is_complex(ops[0]), name(ops[1], cls),
                                  is_complex(ops[1]), type));
        return;
    case OpCode::kPow:
        if (!is_complex(ops[0]) && !is_complex(ops[1])) {
            declare(index, fmt::format("pow({}, {})", name(ops[0], cls), name(ops[1], cls)));
        } else if (cls == ValueClass::kEvent && s == "f" && fp64_) {
            declare(index,
                    fmt::format("narrow_df(cpow_d(widen_fd({}), widen_fd({}), {}))",
                                cx(ops[0], cls), cx(ops[1], cls), is_complex(ops[1]) ? 1 : 0));
        } else {
            declare(index, fmt::format("cpow_{}({}, {}, {})", s, cx(ops[0], cls), cx(ops[1], cls),
                                       is_complex(ops[1]) ? 1 : 0));
        }
        return;
    case OpCode::kAtan2:
        declare(index, fmt::format("atan2({}, {})", name(ops[0], cls), name(ops[1], cls)));
        return;
    case OpCode::kComplex:
        declare(index, fmt::format("mk_{}({}, {})", s, name(ops[0], cls), name(ops[1], cls)));
        return;
    default:
        break;
    }
    unary(index);
}

// The one-operand instructions (kNeg .. kNormSqr).
void Emitter::unary(std::uint32_t index) {
    const ir::Instruction& inst = program_.instructions[index];
    const ValueClass cls = inst.cls;
    const std::string_view s = type_of(cls).suffix;
    const ir::ValueId a = program_.operands_of(inst)[0];
    const bool c = is_complex(a);
    const std::string x = name(a, cls);
    switch (inst.op) {
    case OpCode::kNeg:
        declare(index, c ? fmt::format("mk_{}(-{}.re, -{}.im)", s, x, x) : "(-" + x + ")");
        return;
    case OpCode::kConj:
        declare(index, c ? fmt::format("mk_{}({}.re, -{}.im)", s, x, x) : x);
        return;
    case OpCode::kReal:
        declare(index, re(a, cls));
        return;
    case OpCode::kImag:
        declare(index, im(a, cls));
        return;
    case OpCode::kAbs:
        declare(index, c ? fmt::format("hypot({}.re, {}.im)", x, x) : "fabs(" + x + ")");
        return;
    case OpCode::kArg:
        declare(index, fmt::format("atan2({}, {})", im(a, cls), re(a, cls)));
        return;
    case OpCode::kNormSqr:
        declare(index, c ? fmt::format("({0}.re * {0}.re + {0}.im * {0}.im)", x)
                         : fmt::format("({0} * {0})", x));
        return;
    default:
        break;
    }
    const std::string_view fn = function_name(inst.op);
    declare(index, c ? complex_function(fn, x, cls) : fmt::format("{}({})", fn, x));
}

// The invariants the event code or the outputs read (needed_, in program order) and which of
// them event code reads (event_reads_).
void Emitter::collect_needed() {
    std::vector<bool> is_needed(program_.size(), false);
    event_reads_.assign(program_.size(), false);
    auto need = [&](ir::ValueId id) {
        const std::uint32_t k = ir::to_index(id);
        if (program_.at(id).cls == ValueClass::kInvariant && !is_needed[k]) {
            is_needed[k] = true;
            needed_.push_back(k);
        }
    };
    for (std::uint32_t i = 0; i < program_.size(); ++i) {
        const ir::Instruction& inst = program_.instructions[i];
        if (inst.cls != ValueClass::kEvent) {
            continue;
        }
        for (const ir::ValueId op : program_.operands_of(inst)) {
            need(op);
            event_reads_[ir::to_index(op)] = true;
        }
    }
    for (const ir::ValueId id : program_.outputs) {
        need(id);
    }
    std::sort(needed_.begin(), needed_.end());
}

// Kernel 1, one work-item: the invariants, once per launch, stored in `inv`.
std::string Emitter::invariant_kernel() {
    body_ = "    if (get_global_id(0) != 0) return;\n";
    for (std::uint32_t i = 0; i < program_.size(); ++i) {
        if (program_.instructions[i].cls == ValueClass::kInvariant) {
            instruction(i);
        }
    }
    std::size_t slot = 0;
    for (const std::uint32_t k : needed_) {
        const bool c = program_.instructions[k].kind == ValueKind::kComplex;
        body_ +=
            c ? fmt::format("    inv[{0}] = v{1}.re;\n    inv[{2}] = v{1}.im;\n", slot, k, slot + 1)
              : fmt::format("    inv[{}] = v{};\n", slot, k);
        slot += c ? 2 : 1;
    }
    invariant_slots_ = slot;
    return fmt::format("\n__kernel void laddu_invariants(__global const {0}* params, __global {0}* "
                       "inv) {{\n{1}}}\n",
                       invariant_.name, body_);
}

// Kernel 2, one work-item per event.
std::string Emitter::event_kernel() {
    const std::string_view input_type = event_.name;
    const std::string_view output_type = fp64_ ? "double" : "float";
    std::string args = fmt::format("__global const {}* inv", invariant_.name);
    for (std::size_t s = 0; s < program_.inputs.size(); ++s) {
        args += fmt::format(",\n    __global const {}* restrict in{}r", input_type, s);
        if (program_.inputs[s].kind == ValueKind::kComplex) {
            args += fmt::format(",\n    __global const {}* restrict in{}i", input_type, s);
        }
    }
    for (std::size_t j = 0; j < program_.outputs.size(); ++j) {
        args += fmt::format(",\n    __global {}* restrict out{}r", output_type, j);
        if (is_complex(program_.outputs[j])) {
            args += fmt::format(",\n    __global {}* restrict out{}i", output_type, j);
        }
    }
    args += ",\n    const long begin,\n    const long count";

    body_ = "    const long g = (long)get_global_id(0);\n    if (g >= count) return;\n"
            "    const long e = begin + g;\n";
    std::size_t slot = 0;
    const bool narrow = invariant_.suffix != event_.suffix;
    for (const std::uint32_t k : needed_) {
        const bool c = program_.instructions[k].kind == ValueKind::kComplex;
        body_ += c ? fmt::format("    const cx_{0} v{1} = mk_{0}(inv[{2}], inv[{3}]);\n",
                                 invariant_.suffix, k, slot, slot + 1)
                   : fmt::format("    const {} v{} = inv[{}];\n", invariant_.name, k, slot);
        slot += c ? 2 : 1;
        // Float copies of the invariants f32 event code reads (computed in double).
        if (narrow && event_reads_[k]) {
            body_ += c ? fmt::format("    const cx_f n{0} = narrow_df(v{0});\n", k)
                       : fmt::format("    const float n{0} = (float)v{0};\n", k);
        }
    }
    for (std::uint32_t i = 0; i < program_.size(); ++i) {
        if (program_.instructions[i].cls == ValueClass::kEvent) {
            instruction(i);
        }
    }
    for (std::size_t j = 0; j < program_.outputs.size(); ++j) {
        const ir::ValueId id = program_.outputs[j];
        const ValueClass own = program_.at(id).cls;
        body_ += fmt::format("    out{}r[g] = ({}){};\n", j, output_type, re(id, own));
        if (is_complex(id)) {
            body_ += fmt::format("    out{}i[g] = ({}){};\n", j, output_type, im(id, own));
        }
    }
    return fmt::format("\n__kernel void laddu_kernel({}) {{\n{}}}\n", args, body_);
}

std::string Emitter::run() {
    std::string out = "// Generated by laddu-cpp (gpu::lower_to_opencl).\n";
    out += "#pragma OPENCL FP_CONTRACT OFF\n";
    if (fp64_) {
        out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
        out += helpers_for(kDouble);
    }
    if (!fp64_ || event_.suffix == "f") {
        out += helpers_for(kFloat);
    }
    if (fp64_ && event_.suffix == "f") {
        out += "cx_d widen_fd(cx_f z) { return mk_d((double)z.re, (double)z.im); }\n";
        out += "cx_f narrow_df(cx_d z) { return mk_f((float)z.re, (float)z.im); }\n";
    }
    collect_needed();
    out += invariant_kernel();
    out += event_kernel();
    if (fp64_) {
        out += detail::reduction_kernel(program_);
    }
    return out;
}

}  // namespace

detail::OpenClSource lower(const ir::Program& program, ir::Precision precision, bool fp64) {
    const Expected<void> valid = ir::validate(program);
    if (!valid) {
        throw CompileError("gpu: invalid program: " + valid.error().message);
    }
    if (precision == ir::Precision::kF64 && !fp64) {
        throw BackendError("gpu: precision f64 needs double support (cl_khr_fp64), which this "
                           "device lacks; use precision f32 or another device");
    }
    Emitter emitter(program, precision, fp64);
    detail::OpenClSource source;
    source.text = emitter.run();
    source.invariant_slots = emitter.invariant_slots();
    return source;
}

std::string lower_to_opencl(const ir::Program& program, ir::Precision precision, bool fp64) {
    return lower(program, precision, fp64).text;
}

}  // namespace laddu::gpu
