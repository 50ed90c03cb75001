// The third kernel of a program's OpenCL source, laddu_reduce: the runtime's chunk reductions
// (runtime/reduce.cpp, reduce_gradient.cpp) on the device, over the outputs laddu_kernel has
// just written there. Work-item g sums lane g % 8 of chunk g / 8, so every lane is one
// sequential, fixed chain over events lane, lane + 8, ... of its chunk: runs of kSumRun terms
// added by fma, each closed by a TwoSum step. The (sum, compensation) pairs are those of a
// laddu::LaneSum over the same terms, bit for bit, whatever the work-group size or the order in
// which the device schedules work-items (a chunk is a whole number of runs). The log is
// laddu::log_positive (base/log_positive.cpp) operation for operation, and the source's
// FP_CONTRACT OFF keeps every other product rounded on its own, as on the host.
#include <bit>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/log_positive.hpp>

#include "lower.hpp"

namespace laddu::gpu::detail {

namespace {

// A double as an exact OpenCL literal (hexadecimal).
std::string literal(double value) {
    return fmt::format("{:a}", value);
}

std::string real(std::uint64_t pattern) {
    return literal(std::bit_cast<double>(pattern));
}

// laddu::log_positive in OpenCL C (needs cl_khr_fp64), its table in constant memory.
std::string log_positive_source() {
    namespace c = log_positive_constants;
    std::string invc;
    std::string logc;
    for (const c::LogRow& row : c::kTable) {
        invc += fmt::format("    {},\n", real(row.invc));
        logc += fmt::format("    {},\n", real(row.logc));
    }
    return fmt::format(R"CL(
__constant double laddu_log_invc[{rows}] = {{
{invc}}};
__constant double laddu_log_logc[{rows}] = {{
{logc}}};

double laddu_log_positive(double x) {{
    const ulong raw = as_ulong(x);
    const int subnormal = raw < 0x0010000000000000UL;
    const double scaled = subnormal ? x * {two54} : x;
    const ulong bits = as_ulong(scaled);
    const ulong offset = bits - 0x{start:x}UL;
    const ulong row = (offset >> {shift}) & {mask}UL;
    const long k = ((long)offset >> 52) + (subnormal ? -54L : 0L);
    const double z = as_double(bits - (offset & 0xfff0000000000000UL));
    const double invc = laddu_log_invc[row];
    const double logc = laddu_log_logc[row];
    const double r = fma(z, invc, -1.0);
    const double kd = (double)k;
    const double k_ln2 = kd * {ln2hi};
    const double w = k_ln2 + logc;
    const double w_error = (k_ln2 - w) + logc;
    const double hi = w + r;
    const double lo = fma(kd, {ln2lo}, ((w - hi) + r) + w_error);
    const double r2 = r * r;
    const double p01 = fma(r, {p1}, {p0});
    const double p23 = fma(r, {p3}, {p2});
    const double p45 = fma(r, {p5}, {p4});
    const double p46 = fma(r2, {p6}, p45);
    const double p26 = fma(r2, p46, p23);
    const double p06 = fma(r2, p26, p01);
    return hi + fma(r2, p06, lo);
}}

void laddu_two_sum(double* s, double* c, const double x) {{
    const double total = *s + x;
    const double x_virtual = total - *s;
    const double s_virtual = total - x_virtual;
    *c += (*s - s_virtual) + (x - x_virtual);
    *s = total;
}}
)CL",
                       fmt::arg("rows", std::size(c::kTable)), fmt::arg("invc", invc),
                       fmt::arg("logc", logc), fmt::arg("two54", real(c::kTwo54)),
                       fmt::arg("start", c::kReductionStart), fmt::arg("shift", c::kTableShift),
                       fmt::arg("mask", (1U << c::kTableBits) - 1U),
                       fmt::arg("ln2hi", real(c::kLn2Hi)), fmt::arg("ln2lo", real(c::kLn2Lo)),
                       fmt::arg("p0", literal(c::kPoly[0])), fmt::arg("p1", literal(c::kPoly[1])),
                       fmt::arg("p2", literal(c::kPoly[2])), fmt::arg("p3", literal(c::kPoly[3])),
                       fmt::arg("p4", literal(c::kPoly[4])), fmt::arg("p5", literal(c::kPoly[5])),
                       fmt::arg("p6", literal(c::kPoly[6])));
}

}  // namespace

std::string reduction_kernel(const ir::Program& program) {
    const std::size_t outputs = program.outputs.size();
    // The same arguments as laddu_kernel's outputs, so the host binds the same buffers.
    std::string args;
    for (std::size_t j = 0; j < outputs; ++j) {
        args += fmt::format("    __global const double* restrict out{}r,\n", j);
        if (program.at(program.outputs[j]).kind == ir::ValueKind::kComplex) {
            args += fmt::format("    __global const double* restrict out{}i,\n", j);
        }
    }
    // Sums 1.. read the gradient outputs; only Real ones can be summed (Kernel::reduce checks).
    std::string gradient;
    for (std::size_t j = 1; j < outputs; ++j) {
        gradient += fmt::format(
            "            if (sums > {0}) p[{0}] = fma(scale, out{0}r[i], p[{0}]);\n", j);
    }
    constexpr std::size_t kLanes = kSumLanes;
    return log_positive_source() +
           fmt::format(R"CL(
// term: 0 Σ w v, 1 the same with 0 < v < inf checked, 2 Σ w log v (checked), 3 the same with
// the log of the float value rounded to float (laddu::log_positive_f32); sums > 1 adds
// Σ w T'(v) out_j for j < sums, T' = 1 / v for the logs (rounded as w * (1 / v)).
__kernel void laddu_reduce(
{args}    __global const double* restrict weights,
    const long begin,
    const long count,
    const long chunk_events,
    const int term,
    const int sums,
    __global double* restrict lanes,
    __global int* restrict bad) {{
    const long g = (long)get_global_id(0);
    const long chunk = g / {lanes};
    const long lane = g % {lanes};
    if (chunk * chunk_events >= count) return;
    const long end = min(chunk * chunk_events + chunk_events, count);
    double s[{outputs}];
    double c[{outputs}];
    double p[{outputs}];
    for (int j = 0; j < {outputs}; ++j) {{
        s[j] = 0.0;
        c[j] = 0.0;
        p[j] = 0.0;
    }}
    int failed = 0;
    int in_run = 0;
    for (long i = chunk * chunk_events + lane; i < end; i += {lanes}) {{
        const double v = out0r[i];
        const double w = weights[begin + i];
        if (term != 0 && !(v > 0.0 && v < INFINITY)) failed = 1;
        const double t = term == 2   ? laddu_log_positive(v)
                         : term == 3 ? (double)(float)laddu_log_positive((double)(float)v)
                                     : v;
        p[0] = fma(w, t, p[0]);
        if (sums > 1) {{
            const double scale = term >= 2 ? w * (1.0 / v) : w;
{gradient}        }}
        if (++in_run == {run}) {{
            in_run = 0;
            for (int j = 0; j < sums; ++j) {{
                laddu_two_sum(&s[j], &c[j], p[j]);
                p[j] = 0.0;
            }}
        }}
    }}
    for (int j = 0; j < sums; ++j) {{
        laddu_two_sum(&s[j], &c[j], p[j]);
        lanes[(chunk * sums + j) * {pair} + lane] = s[j];
        lanes[(chunk * sums + j) * {pair} + {lanes} + lane] = c[j];
    }}
    bad[g] = failed;
}}
)CL",
                       fmt::arg("args", args), fmt::arg("lanes", kLanes),
                       fmt::arg("pair", 2 * kLanes), fmt::arg("run", kSumRun),
                       fmt::arg("outputs", outputs), fmt::arg("gradient", gradient));
}

}  // namespace laddu::gpu::detail
