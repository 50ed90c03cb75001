// The OpenCL backend as a ChunkKernel. Compiled to nothing unless the gpu stage is built
// (LADDU_HAVE_GPU, from laddu_add_stage's OPTIONAL_DEPS).
//
// The runtime asks for kReductionChunk events at a time from several threads; a launch that
// small leaves a GPU mostly idle. So the kernel works in blocks of kBlockEvents events, one
// launch each, and keeps what a block gave (shared by the threads of one pass: from the first
// bind() until the last bound kernel is destroyed, for one parameter vector and one set of input
// columns), handing every chunk its slice. The reductions run on the device
// (gpu::Kernel::reduce): a block comes back as the LaneSum lanes of its chunks, a few doubles per
// 1024 events, which the runtime finishes and merges in its fixed order exactly as the JIT's
// fused lanes, so a result does not depend on the block size, the work-group size or the thread
// count, and it is the CPU backends' to the bit wherever the device's operations are. Per-event
// outputs (evaluate, and a chunk whose values failed a check, which the unfused path then names)
// come back as whole blocks too.
#if LADDU_HAVE_GPU
#include "gpu_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/gpu/gpu.hpp>

namespace laddu::runtime::detail {

namespace {

// Events per launch: a multiple of kReductionChunk, large enough to fill a GPU.
constexpr std::size_t kBlockEvents = 64 * kReductionChunk;

// At most this many bytes of block outputs are kept (at least one block).
constexpr std::size_t kMaxBlockBytes = std::size_t{256} << 20U;

// What the block outputs were computed from: the parameters (bitwise), the column addresses and
// a sample of the columns' values (a streaming pass may build its next window's cache at the
// address of the last one).
struct Identity {
    std::vector<double> params;
    std::vector<const void*> columns;
    std::size_t events = 0;
    std::uint64_t fingerprint = 0;

    friend bool operator==(const Identity& a, const Identity& b) {
        return a.events == b.events && a.fingerprint == b.fingerprint && a.columns == b.columns &&
               a.params.size() == b.params.size() &&
               std::memcmp(a.params.data(), b.params.data(), a.params.size() * sizeof(double)) == 0;
    }
};

void mix(std::uint64_t& h, const void* data, std::size_t bytes) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, data, std::min(bytes, sizeof(bits)));
    h = (h ^ bits) * 0x100000001b3ULL;
    h ^= h >> 29U;
}

std::uint64_t sample(const void* data, std::size_t count, std::size_t element, std::uint64_t h) {
    if (data == nullptr || count == 0) {
        return h;
    }
    const auto* bytes = static_cast<const unsigned char*>(data);
    constexpr std::size_t kSamples = 33;
    for (std::size_t s = 0; s < kSamples; ++s) {
        mix(h, bytes + (s * (count - 1) / (kSamples - 1)) * element, element);
    }
    return h;
}

Identity identity_of(std::span<const double> params, const ir::ColumnView& inputs) {
    Identity id;
    id.params.assign(params.begin(), params.end());
    id.events = inputs.events;
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const ir::InputColumn& c : inputs.columns) {
        for (const void* p : {static_cast<const void*>(c.re), static_cast<const void*>(c.im),
                              static_cast<const void*>(c.re32), static_cast<const void*>(c.im32)}) {
            id.columns.push_back(p);
        }
        h = sample(c.re, inputs.events, sizeof(double), h);
        h = sample(c.im, inputs.events, sizeof(double), h);
        h = sample(c.re32, inputs.events, sizeof(float), h);
        h = sample(c.im32, inputs.events, sizeof(float), h);
    }
    id.fingerprint = h;
    return id;
}

// Which device reduction a FusedReduction is, or none: the device sums in double, so it needs
// doubles.
std::optional<gpu::Reduction> device_reduction(const gpu::Kernel& kernel,
                                               const FusedReduction& reduction) {
    if (!kernel.reduces()) {
        return std::nullopt;
    }
    gpu::Reduction out;
    out.sums = reduction.sums;
    out.chunk_events = kReductionChunk;
    switch (reduction.transform) {
    case ReductionTransform::kReal:
        out.term = gpu::ReductionTerm::kReal;
        break;
    case ReductionTransform::kPositiveReal:
        out.term = gpu::ReductionTerm::kPositive;
        break;
    case ReductionTransform::kLogPositiveReal:
        out.term = reduction.float_log ? gpu::ReductionTerm::kLogFloat : gpu::ReductionTerm::kLog;
        break;
    }
    return out;
}

// The lanes of the chunks of events [first, first + events) for one reduction and weights.
struct ReducedBlock {
    std::size_t first = 0;
    gpu::Reduction reduction;
    const double* weights = nullptr;
    std::vector<double> lanes;
    std::vector<std::uint8_t> bad;
    std::uint64_t last_use = 0;
};

// The per-event outputs of events [first, first + events).
struct Block {
    std::size_t first = 0;
    std::size_t events = 0;
    std::vector<std::vector<double>> re;
    std::vector<std::vector<double>> im;
    std::uint64_t last_use = 0;
};

class GpuChunkKernel final : public ChunkKernel {
public:
    GpuChunkKernel(const ir::Program& program, std::shared_ptr<const gpu::Kernel> kernel,
                   ir::Precision precision, std::size_t resident_budget)
        : program_(program), kernel_(std::move(kernel)), precision_(precision),
          resident_budget_(resident_budget) {}

    [[nodiscard]] const ir::Program& program() const noexcept override { return program_; }

    [[nodiscard]] std::string_view backend() const noexcept override { return "gpu"; }

    [[nodiscard]] ir::Precision precision() const noexcept override { return precision_; }

    [[nodiscard]] std::unique_ptr<BoundKernel>
    bind_checked(std::span<const double> params) const override;

    [[nodiscard]] std::size_t bound_bytes() const noexcept override {
        // The blocks are shared by all workers; a worker holds only its parameters.
        return program_.parameter_count * sizeof(double);
    }

    // A pass starts with the first bound kernel and ends when the last one is destroyed (the
    // runtime binds one per worker before a pass and, as keeps_workers() says, drops them after
    // it); its blocks go then.
    void attach() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++live_;
    }

    void detach() const noexcept {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (--live_ == 0) {
            blocks_.clear();
            reduced_.clear();
            identity_ = Identity{};
        }
    }

    // Copies the lanes of the reduction chunk at events [begin, begin + count) into `lanes`,
    // reducing its block on the device when it is not kept yet. False when the device does not
    // run this reduction or a value of the chunk failed the term's check.
    bool reduced(std::span<const double> params, const ir::ColumnView& inputs, std::size_t begin,
                 std::size_t count, std::span<const double> weights,
                 const FusedReduction& reduction, std::span<double> lanes) const {
        const std::optional<gpu::Reduction> spec = device_reduction(*kernel_, reduction);
        if (!spec || begin % kReductionChunk != 0 ||
            count != std::min(kReductionChunk, inputs.events - begin)) {
            return false;
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        reset_for(params, inputs);
        const ReducedBlock& block = reduced_for(params, inputs, weights, *spec, begin);
        const std::size_t chunk = (begin - block.first) / kReductionChunk;
        if (block.bad[chunk] != 0) {
            return false;
        }
        const std::size_t doubles = spec->sums * 2 * kSumLanes;
        std::copy_n(block.lanes.begin() + static_cast<std::ptrdiff_t>(chunk * doubles), doubles,
                    lanes.begin());
        return true;
    }

    // Copies the outputs of events [begin, begin + count) into `out`, launching the kernel for
    // the blocks not kept yet.
    void results(std::span<const double> params, const ir::ColumnView& inputs, std::size_t begin,
                 std::size_t count, std::span<const ir::OutputColumn> out) const {
        const std::lock_guard<std::mutex> lock(mutex_);
        reset_for(params, inputs);
        std::size_t done = 0;
        while (done < count) {
            const std::size_t event = begin + done;
            const Block& block = block_for(params, inputs, event / kBlockEvents * kBlockEvents);
            const std::size_t offset = event - block.first;
            const std::size_t n = std::min(count - done, block.events - offset);
            for (std::size_t j = 0; j < out.size(); ++j) {
                std::copy_n(block.re[j].data() + offset, n, out[j].re + done);
                if (out[j].im != nullptr) {
                    std::copy_n(block.im[j].data() + offset, n, out[j].im + done);
                }
            }
            done += n;
        }
    }

private:
    // A pass's blocks live as long as its bound kernels (attach, detach): workers kept for the
    // next pass would keep them too.
    [[nodiscard]] bool keeps_workers() const noexcept override { return false; }

    // Drops what was kept for other parameters or input columns.
    void reset_for(std::span<const double> params, const ir::ColumnView& inputs) const {
        Identity id = identity_of(params, inputs);
        if (!(id == identity_)) {
            identity_ = std::move(id);
            blocks_.clear();
            reduced_.clear();
        }
    }

    const ReducedBlock& reduced_for(std::span<const double> params, const ir::ColumnView& inputs,
                                    std::span<const double> weights, const gpu::Reduction& spec,
                                    std::size_t event) const {
        const std::size_t first = event / kBlockEvents * kBlockEvents;
        for (ReducedBlock& block : reduced_) {
            if (block.first == first && block.weights == weights.data() &&
                block.reduction.term == spec.term && block.reduction.sums == spec.sums) {
                block.last_use = ++tick_;
                return block;
            }
        }
        const std::size_t events = std::min(kBlockEvents, inputs.events - first);
        const std::size_t chunks = (events + kReductionChunk - 1) / kReductionChunk;
        const std::size_t bytes =
            kBlockEvents / kReductionChunk * spec.sums * 2 * kSumLanes * sizeof(double);
        while (!reduced_.empty() && (reduced_.size() + 1) * bytes > kMaxBlockBytes) {
            reduced_.erase(std::min_element(reduced_.begin(), reduced_.end(),
                                            [](const ReducedBlock& a, const ReducedBlock& b) {
                                                return a.last_use < b.last_use;
                                            }));
        }
        ReducedBlock block;
        block.first = first;
        block.reduction = spec;
        block.weights = weights.data();
        block.lanes.resize(chunks * spec.sums * 2 * kSumLanes);
        block.bad.resize(chunks);
        kernel_->reduce(params, inputs, weights, first, events, spec, block.lanes, block.bad, 0,
                        resident_budget_);
        block.last_use = ++tick_;
        reduced_.push_back(std::move(block));
        return reduced_.back();
    }

    const Block& block_for(std::span<const double> params, const ir::ColumnView& inputs,
                           std::size_t first) const {
        for (Block& block : blocks_) {
            if (block.first == first) {
                block.last_use = ++tick_;
                return block;
            }
        }
        const std::size_t outputs = program_.outputs.size();
        const std::size_t events = std::min(kBlockEvents, inputs.events - first);
        const std::size_t bytes = 2 * outputs * kBlockEvents * sizeof(double);
        while (!blocks_.empty() && (blocks_.size() + 1) * bytes > kMaxBlockBytes) {
            blocks_.erase(std::min_element(
                blocks_.begin(), blocks_.end(),
                [](const Block& a, const Block& b) { return a.last_use < b.last_use; }));
        }
        Block block;
        block.first = first;
        block.events = events;
        block.re.assign(outputs, std::vector<double>(events));
        block.im.assign(outputs, std::vector<double>(events));
        std::vector<ir::OutputColumn> columns;
        columns.reserve(outputs);
        for (std::size_t j = 0; j < outputs; ++j) {
            columns.push_back({block.re[j].data(), block.im[j].data()});
        }
        kernel_->run(params, inputs, first, events, columns, 0, resident_budget_);
        block.last_use = ++tick_;
        blocks_.push_back(std::move(block));
        return blocks_.back();
    }

    ir::Program program_;
    std::shared_ptr<const gpu::Kernel> kernel_;
    ir::Precision precision_;
    std::size_t resident_budget_;
    mutable std::mutex mutex_;
    mutable Identity identity_;
    mutable std::vector<Block> blocks_;
    mutable std::vector<ReducedBlock> reduced_;
    mutable std::uint64_t tick_ = 0;
    mutable std::size_t live_ = 0;  ///< bound kernels alive
};

class BoundGpu final : public BoundKernel {
public:
    BoundGpu(const GpuChunkKernel& kernel, std::span<const double> params)
        : kernel_(kernel), params_(params.begin(), params.end()) {
        kernel_.attach();
    }

    BoundGpu(const BoundGpu&) = delete;
    BoundGpu& operator=(const BoundGpu&) = delete;
    BoundGpu(BoundGpu&&) = delete;
    BoundGpu& operator=(BoundGpu&&) = delete;

    ~BoundGpu() override { kernel_.detach(); }

    void rebind(std::span<const double> params) override {
        params_.assign(params.begin(), params.end());
    }

    void run(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
             std::span<const ir::OutputColumn> out) override {
        kernel_.results(params_, inputs, begin, count, out);
    }

    bool reduce_chunk(const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                      std::span<const double> weights, const FusedReduction& reduction,
                      std::span<double> lanes) override {
        return kernel_.reduced(params_, inputs, begin, count, weights, reduction, lanes);
    }

private:
    const GpuChunkKernel& kernel_;
    std::vector<double> params_;
};

std::unique_ptr<BoundKernel> GpuChunkKernel::bind_checked(std::span<const double> params) const {
    return std::make_unique<BoundGpu>(*this, params);
}

}  // namespace

std::shared_ptr<const ChunkKernel> make_gpu_kernel(const ir::Program& program,
                                                   ir::Precision precision, std::size_t device,
                                                   std::size_t resident_budget) {
    return std::make_shared<const GpuChunkKernel>(program, gpu::compile(program, precision, device),
                                                  precision, resident_budget);
}

}  // namespace laddu::runtime::detail

#endif  // LADDU_HAVE_GPU
