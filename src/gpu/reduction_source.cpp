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

std::string real(std::uint64_t pattern) {
    return fmt::format("{:a}", std::bit_cast<double>(pattern));
}

// laddu::log_positive in OpenCL C (needs cl_khr_fp64).
std::string log_positive_source() {
    namespace c = log_positive_constants;
    return fmt::format(R"CL(
double laddu_log_positive(double x) {{
    const ulong raw = as_ulong(x);
    const int subnormal = raw < 0x0010000000000000UL;
    const double scaled = subnormal ? x * {two54} : x;
    const ulong bits = as_ulong(scaled);
    long high = (long)(bits >> 32);
    long k = (subnormal ? -54L : 0L) + (high >> 20) - 1023L;
    high &= 0x000fffffL;
    const long i = (high + 0x95f64L) & 0x100000L;
    const ulong top = (ulong)(high | (i ^ 0x3ff00000L));
    const double m = as_double((top << 32) | (bits & 0xffffffffUL));
    k += i >> 20;
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const double dk = (double)k;
    const double z = s * s;
    const double w = z * z;
    const double t1 = w * ({lg1} + w * ({lg3} + w * {lg5}));
    const double t2 = z * ({lg0} + w * ({lg2} + w * ({lg4} + w * {lg6})));
    const double r = t2 + t1;
    const int wide = ((high - 0x6147aL) | (0x6b851L - high)) > 0;
    const double hfsq = 0.5 * f * f;
    const double ln2_hi = dk * {ln2hi};
    const double ln2_lo = dk * {ln2lo};
    const double away = ln2_hi - ((hfsq - (s * (hfsq + r) + ln2_lo)) - f);
    const double near = ln2_hi - ((s * (f - r) - ln2_lo) - f);
    return wide ? away : near;
}}

void laddu_two_sum(double* s, double* c, const double x) {{
    const double total = *s + x;
    const double x_virtual = total - *s;
    const double s_virtual = total - x_virtual;
    *c += (*s - s_virtual) + (x - x_virtual);
    *s = total;
}}
)CL",
                       fmt::arg("two54", real(c::kTwo54)), fmt::arg("lg0", real(c::kLg[0])),
                       fmt::arg("lg1", real(c::kLg[1])), fmt::arg("lg2", real(c::kLg[2])),
                       fmt::arg("lg3", real(c::kLg[3])), fmt::arg("lg4", real(c::kLg[4])),
                       fmt::arg("lg5", real(c::kLg[5])), fmt::arg("lg6", real(c::kLg[6])),
                       fmt::arg("ln2hi", real(c::kLn2Hi)), fmt::arg("ln2lo", real(c::kLn2Lo)));
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
