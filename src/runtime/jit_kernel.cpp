// The LLVM JIT as a ChunkKernel. Compiled to nothing unless the jit stage is built
// (LADDU_HAVE_JIT, from laddu_add_stage's OPTIONAL_DEPS).
#if LADDU_HAVE_JIT
#include "jit_kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/base/log.hpp>
#include <laddu/jit/jit.hpp>

namespace laddu::runtime::detail {

namespace {

class BoundJit final : public BoundKernel {
public:
    BoundJit(const jit::JitKernel& kernel, const ir::Program& program,
             std::span<const double> params)
        : kernel_(kernel), program_(program), params_(params.begin(), params.end()) {}

    void rebind(std::span<const double> params) override {
        params_.assign(params.begin(), params.end());
    }

    void run(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
             std::span<const ir::OutputColumn> out) override {
        // The kernel indexes columns by event; pointers advanced by `begin` make this range
        // start at 0, so outputs land at [0, count).
        output_pointers_.clear();
        scratch_.resize(count);
        for (std::size_t j = 0; j < program_.outputs.size(); ++j) {
            output_pointers_.push_back(out[j].re);
            if (program_.at(program_.outputs[j]).kind == ir::ValueKind::kComplex) {
                // A caller that wants only the real part passes no imaginary column.
                output_pointers_.push_back(out[j].im != nullptr ? out[j].im : scratch_.data());
            }
        }
        kernel_.function()(params_.data(), input_pointers(inputs, begin, count),
                           output_pointers_.data(), 0, static_cast<std::int64_t>(count));
    }

    bool reduce_chunk(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                      std::span<const double> weights, const FusedReduction& reduction,
                      std::span<double> lanes) override {
        const jit::JitReduction* fused = fused_for(reduction, input_stride(inputs));
        return fused != nullptr &&
               fused->run(params_.data(), input_pointers(inputs, begin, count),
                          weights.data() + begin, static_cast<std::int64_t>(count), lanes.data());
    }

private:
    // The kernel's input pointers for events [begin, begin + count), in the column type it was
    // compiled for (the ABI passes both as `const double* const*`).
    const double* const* input_pointers(const ir::ColumnView& inputs, std::size_t begin,
                                        std::size_t count) {
        if (kernel_.input_columns() == jit::InputColumns::kFloat) {
            // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): one pointer ABI
            return reinterpret_cast<const double* const*>(
                float_pointers(inputs, begin, count).data());
        }
        double_pointers_.clear();
        for (std::size_t slot = 0; slot < program_.inputs.size(); ++slot) {
            const ir::InputColumn& column = inputs.columns[slot];
            if (column.is_f32()) {
                throw InternalError("an f64 JIT kernel was given a float event cache");
            }
            double_pointers_.push_back(column.re + begin);
            if (program_.inputs[slot].kind == ir::ValueKind::kComplex) {
                double_pointers_.push_back(column.im + begin);
            }
        }
        return double_pointers_.data();
    }

    // The kernel's fused form of `reduction`, compiled on first use (once per kernel and spec,
    // in the JIT; this remembers the one last asked for), or null when the JIT cannot build
    // it: the reductions then run unfused, with the same bits, and the reason is logged once.
    const jit::JitReduction* fused_for(const FusedReduction& reduction, std::size_t stride) {
        const jit::ReductionSpec spec{term(reduction), static_cast<std::uint32_t>(reduction.sums),
                                      reduction.unit_weights, stride};
        if (!fused_spec_ || !(*fused_spec_ == spec)) {
            Expected<jit::JitReduction> compiled = kernel_.reduction(spec);
            fused_spec_ = spec;
            fused_.reset();
            if (compiled) {
                fused_ = std::move(compiled).value();
            } else {
                log_once(LogLevel::kWarn, "runtime.jit_unfused",
                         "jit: reductions run unfused: " + compiled.error().message);
            }
        }
        return fused_ ? &*fused_ : nullptr;
    }

    // The bytes from each of the kernel's input columns to the next when `inputs` holds them
    // evenly spaced in the type the kernel reads (an EventCache lays its columns out so), else
    // 0. Double columns a float kernel reads are copied per chunk: 0 for those.
    [[nodiscard]] std::size_t input_stride(const ir::ColumnView& inputs) const {
        const bool f32 = kernel_.input_columns() == jit::InputColumns::kFloat;
        std::uintptr_t previous = 0;
        std::uintptr_t stride = 0;  // 0 until two columns are seen
        std::size_t seen = 0;
        // False when `column` does not follow the previous one at the same distance.
        const auto follows = [&](const void* column) {
            // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): addresses compared only
            const auto at = reinterpret_cast<std::uintptr_t>(column);
            if (seen++ > 0) {
                if (at <= previous || (stride != 0 && at - previous != stride)) {
                    return false;
                }
                stride = at - previous;
            }
            previous = at;
            return true;
        };
        for (std::size_t slot = 0; slot < program_.inputs.size(); ++slot) {
            const ir::InputColumn& column = inputs.columns[slot];
            if (f32 != column.is_f32() ||
                !follows(f32 ? static_cast<const void*>(column.re32) : column.re)) {
                return 0;
            }
            if (program_.inputs[slot].kind == ir::ValueKind::kComplex &&
                !follows(f32 ? static_cast<const void*>(column.im32) : column.im)) {
                return 0;
            }
        }
        return stride;
    }

    static jit::ReductionTerm term(const FusedReduction& reduction) noexcept {
        switch (reduction.transform) {
        case ReductionTransform::kPositiveReal:
            return jit::ReductionTerm::kPositive;
        case ReductionTransform::kLogPositiveReal:
            return reduction.float_log ? jit::ReductionTerm::kLogFloat : jit::ReductionTerm::kLog;
        case ReductionTransform::kReal:
            break;
        }
        return jit::ReductionTerm::kReal;
    }

    // The float columns of [begin, begin + count): the cache's own when it is stored in float
    // (the runtime's f32 caches), else double columns rounded here, which is what the kernel
    // would do to each loaded value, so the bits are the same.
    std::span<const float* const> float_pointers(const ir::ColumnView& inputs, std::size_t begin,
                                                 std::size_t count) {
        float_pointers_.clear();
        converted_.clear();
        for (std::size_t slot = 0; slot < program_.inputs.size(); ++slot) {
            if (!inputs.columns[slot].is_f32()) {
                const std::size_t parts =
                    program_.inputs[slot].kind == ir::ValueKind::kComplex ? 2 : 1;
                converted_.resize(converted_.size() + parts * count);
            }
        }
        std::size_t at = 0;
        const auto round = [&](const double* column) {
            float* to = converted_.data() + at;
            std::copy_n(column + begin, count, to);
            at += count;
            return static_cast<const float*>(to);
        };
        for (std::size_t slot = 0; slot < program_.inputs.size(); ++slot) {
            const ir::InputColumn& column = inputs.columns[slot];
            const bool complex = program_.inputs[slot].kind == ir::ValueKind::kComplex;
            if (column.is_f32()) {
                float_pointers_.push_back(column.re32 + begin);
                if (complex) {
                    float_pointers_.push_back(column.im32 + begin);
                }
            } else {
                float_pointers_.push_back(round(column.re));
                if (complex) {
                    float_pointers_.push_back(round(column.im));
                }
            }
        }
        return float_pointers_;
    }

    const jit::JitKernel& kernel_;
    const ir::Program& program_;
    std::vector<double> params_;
    std::vector<const double*> double_pointers_;
    std::vector<const float*> float_pointers_;
    std::vector<float> converted_;
    std::vector<double*> output_pointers_;
    std::vector<double> scratch_;
    std::optional<jit::ReductionSpec> fused_spec_;
    std::optional<jit::JitReduction> fused_;
};

class JitChunkKernel final : public ChunkKernel {
public:
    JitChunkKernel(const ir::Program& program, jit::JitKernel kernel, ir::Precision precision)
        : program_(program), kernel_(std::move(kernel)), precision_(precision) {}

    [[nodiscard]] const ir::Program& program() const noexcept override { return program_; }

    [[nodiscard]] std::string_view backend() const noexcept override { return "jit"; }

    [[nodiscard]] ir::Precision precision() const noexcept override { return precision_; }

    [[nodiscard]] std::unique_ptr<BoundKernel>
    bind_checked(std::span<const double> params) const override {
        return std::make_unique<BoundJit>(kernel_, program_, params);
    }

    [[nodiscard]] std::size_t bound_bytes() const noexcept override {
        // BoundJit's scratch column, and the float copies of a chunk's double inputs.
        std::size_t parts = 0;
        for (const ir::InputSlot& slot : program_.inputs) {
            parts += slot.kind == ir::ValueKind::kComplex ? 2 : 1;
        }
        const std::size_t converted =
            kernel_.input_columns() == jit::InputColumns::kFloat ? parts * sizeof(float) : 0;
        return program_.parameter_count * sizeof(double) +
               kReductionChunk * (sizeof(double) + converted);
    }

private:
    ir::Program program_;
    jit::JitKernel kernel_;
    ir::Precision precision_;
};

}  // namespace

Expected<std::shared_ptr<const ChunkKernel>>
make_jit_kernel(const ir::Program& program, ir::Precision precision, bool cached_only) {
    // f32 runs keep their event cache in float (EventCache::storage), so f32 kernels read float.
    const bool f32 = precision == ir::Precision::kF32;
    Expected<jit::JitKernel> kernel = jit::compile(
        program, f32 ? ir::Precision::kF32 : ir::Precision::kF64, jit::CodeGen::kOptimized,
        f32 ? jit::InputColumns::kFloat : jit::InputColumns::kDouble,
        cached_only ? jit::CacheUse::kCachedOnly : jit::CacheUse::kCompileOnMiss);
    if (!kernel) {
        return kernel.error();
    }
    return std::shared_ptr<const ChunkKernel>(
        std::make_shared<const JitChunkKernel>(program, std::move(kernel).value(), precision));
}

}  // namespace laddu::runtime::detail

#endif  // LADDU_HAVE_JIT
