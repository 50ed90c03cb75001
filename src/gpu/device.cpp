// Kernels on their devices: the kernel cache, resident input columns, Kernel::run and
// Kernel::reduce. With registry.cpp (the devices) the only code that includes the OpenCL headers.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/error.hpp>
#include <laddu/gpu/gpu.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/ir/validate.hpp>

#include "lower.hpp"
#include "registry.hpp"

namespace laddu::gpu {

namespace detail {

namespace {

// A 64-bit fingerprint of a column: its length and up to 65 values spread over it. It tells a
// column apart from another one later allocated at the same address (a streaming window's
// cache), which the address and length alone cannot.
std::uint64_t fingerprint(const void* data, std::size_t count, std::size_t element) {
    std::uint64_t h = 0xcbf29ce484222325ULL ^ count;
    const auto* bytes = static_cast<const unsigned char*>(data);
    const std::size_t samples = std::min<std::size_t>(count, 65);
    for (std::size_t s = 0; s < samples; ++s) {
        const std::size_t at = samples == 1 ? 0 : s * (count - 1) / (samples - 1);
        std::uint64_t bits = 0;
        std::memcpy(&bits, bytes + at * element, element);
        h = (h ^ bits) * 0x100000001b3ULL;
        h ^= h >> 29U;
    }
    return h;
}

}  // namespace

struct KernelState {
    ir::Program program;
    ir::Precision precision = ir::Precision::kF64;
    std::size_t device = 0;
    std::string source;
    double compile_seconds = 0.0;
    bool fp64 = true;  // params and outputs are double (else float)
    std::size_t invariant_slots = 0;
    cl_program cl_prog = nullptr;
    cl_kernel cl_invariants = nullptr;
    cl_kernel cl_kern = nullptr;
    cl_kernel cl_reduce = nullptr;  // with fp64 only
    // Guarded by the device's mutex: the parameter, invariant and output buffers, reused across
    // runs.
    cl_mem params = nullptr;
    std::size_t params_bytes = 0;
    cl_mem invariants = nullptr;
    std::size_t invariants_bytes = 0;
    std::vector<cl_mem> outputs;
    std::size_t output_bytes = 0;
    cl_mem lanes = nullptr;  // laddu_reduce's lane pairs and per-work-item failure flags
    std::size_t lanes_bytes = 0;
    cl_mem bad = nullptr;
    std::size_t bad_bytes = 0;

    KernelState() = default;
    KernelState(const KernelState&) = delete;
    KernelState& operator=(const KernelState&) = delete;
    KernelState(KernelState&&) = delete;
    KernelState& operator=(KernelState&&) = delete;

    ~KernelState() {
        for (cl_mem m : outputs) {
            clReleaseMemObject(m);
        }
        for (cl_mem m : {params, invariants, lanes, bad}) {
            if (m != nullptr) {
                clReleaseMemObject(m);
            }
        }
        for (cl_kernel k : {cl_invariants, cl_kern, cl_reduce}) {
            if (k != nullptr) {
                clReleaseKernel(k);
            }
        }
        if (cl_prog != nullptr) {
            clReleaseProgram(cl_prog);
        }
    }
};

namespace {

// The device copy of one input column (uploading it, converted to the kernel's element type,
// when it is not resident), evicting least recently used columns to stay within `budget` bytes
// (0: 3/4 of the device's memory).
cl_mem resident_column(DeviceEntry& device, const double* column64, const float* column32,
                       std::size_t events, bool want_float, std::size_t budget) {
    const void* host = column32 != nullptr ? static_cast<const void*>(column32) : column64;
    const std::size_t host_element = column32 != nullptr ? sizeof(float) : sizeof(double);
    const std::size_t element = want_float ? sizeof(float) : sizeof(double);
    const ColumnKey key{host, events, element};
    const std::uint64_t print = fingerprint(host, events, host_element);
    auto found = device.columns.find(key);
    if (found != device.columns.end()) {
        if (found->second.fingerprint == print) {
            found->second.last_use = ++device.tick;
            return found->second.buffer;
        }
        device.resident_bytes -= found->second.bytes;
        clReleaseMemObject(found->second.buffer);
        device.columns.erase(found);
    }
    const std::size_t bytes = std::max<std::size_t>(events, 1) * element;
    if (budget == 0) {
        budget = device.info.global_memory / 4 * 3;
    }
    while (!device.columns.empty() && device.resident_bytes + bytes > budget) {
        auto oldest = std::min_element(
            device.columns.begin(), device.columns.end(),
            [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
        device.resident_bytes -= oldest->second.bytes;
        clReleaseMemObject(oldest->second.buffer);
        device.columns.erase(oldest);
    }
    // Converted on the host when the cache's type is not the kernel's: rounding a double to
    // float here is what the kernel would do to each loaded value.
    std::vector<double> wide;
    std::vector<float> narrow;
    const void* upload = host;
    if (want_float && column32 == nullptr) {
        narrow.assign(column64, column64 + events);
        upload = narrow.data();
    } else if (!want_float && column32 != nullptr) {
        wide.assign(column32, column32 + events);
        upload = wide.data();
    }
    cl_int error = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(device.context, CL_MEM_READ_ONLY, bytes, nullptr, &error);
    check(error, "allocating an input column");
    if (events > 0) {
        error = clEnqueueWriteBuffer(device.queue, buffer, CL_TRUE, 0, events * element, upload, 0,
                                     nullptr, nullptr);
        if (error != CL_SUCCESS) {
            clReleaseMemObject(buffer);
            check(error, "uploading an input column");
        }
    }
    device.columns[key] = Resident{buffer, bytes, print, ++device.tick};
    device.resident_bytes += bytes;
    return buffer;
}

void ensure_buffer(DeviceEntry& device, cl_mem& buffer, std::size_t& have, std::size_t bytes,
                   cl_mem_flags flags, const char* what) {
    if (buffer != nullptr && have >= bytes) {
        return;
    }
    if (buffer != nullptr) {
        clReleaseMemObject(buffer);
        buffer = nullptr;
    }
    cl_int error = CL_SUCCESS;
    buffer = clCreateBuffer(device.context, flags, bytes, nullptr, &error);
    if (error != CL_SUCCESS) {
        buffer = nullptr;
        have = 0;
        check(error, what);
    }
    have = bytes;
}

void set_arg(cl_kernel kernel, cl_uint index, const cl_mem& m) {
    check(clSetKernelArg(kernel, index, sizeof(cl_mem), static_cast<const void*>(&m)),
          "setting a kernel argument");
}

// Queues `kernel` on `items` work-items (rounded up to whole work-groups of `work_group_size`;
// 0 lets the driver choose): every kernel returns early past its last item.
void launch(DeviceEntry& device, cl_kernel kernel, std::size_t items, std::size_t work_group_size,
            const char* what) {
    std::size_t global = items;
    const std::size_t* local = nullptr;
    if (work_group_size > 0) {
        global = (items + work_group_size - 1) / work_group_size * work_group_size;
        local = &work_group_size;
    }
    check(clEnqueueNDRangeKernel(device.queue, kernel, 1, nullptr, &global, local, 0, nullptr,
                                 nullptr),
          what);
}

// Uploads the parameters (the only data sent on every call; at least one element: zero-sized
// buffers are invalid) and queues the invariant kernel, which fills state.invariants.
void launch_invariants(KernelState& state, DeviceEntry& device, std::span<const double> params) {
    const std::size_t element = state.fp64 ? sizeof(double) : sizeof(float);
    ensure_buffer(device, state.params, state.params_bytes,
                  std::max<std::size_t>(params.size(), 1) * element, CL_MEM_READ_ONLY,
                  "allocating the parameters");
    if (!params.empty()) {
        std::vector<float> narrow;
        const void* data = params.data();
        if (!state.fp64) {
            narrow.assign(params.begin(), params.end());
            data = narrow.data();
        }
        check(clEnqueueWriteBuffer(device.queue, state.params, CL_TRUE, 0, params.size() * element,
                                   data, 0, nullptr, nullptr),
              "uploading the parameters");
    }
    ensure_buffer(device, state.invariants, state.invariants_bytes,
                  std::max<std::size_t>(state.invariant_slots, 1) * element, CL_MEM_READ_WRITE,
                  "allocating the invariants");
    set_arg(state.cl_invariants, 0, state.params);
    set_arg(state.cl_invariants, 1, state.invariants);
    const std::size_t one = 1;
    check(clEnqueueNDRangeKernel(device.queue, state.cl_invariants, 1, nullptr, &one, &one, 0,
                                 nullptr, nullptr),
          "launching the invariant kernel");
}

// One device output column per program output column, each at least `count` elements.
void ensure_outputs(KernelState& state, DeviceEntry& device, std::size_t count) {
    std::size_t columns = 0;
    for (const ir::ValueId id : state.program.outputs) {
        columns += state.program.at(id).kind == ir::ValueKind::kComplex ? 2U : 1U;
    }
    const std::size_t bytes = count * (state.fp64 ? sizeof(double) : sizeof(float));
    if (state.output_bytes >= bytes && state.outputs.size() == columns) {
        return;
    }
    for (cl_mem m : state.outputs) {
        clReleaseMemObject(m);
    }
    state.outputs.assign(columns, nullptr);
    state.output_bytes = 0;
    for (cl_mem& m : state.outputs) {
        std::size_t have = 0;
        // Read and written: laddu_reduce sums what laddu_kernel stores.
        ensure_buffer(device, m, have, bytes, CL_MEM_READ_WRITE, "allocating an output column");
    }
    state.output_bytes = bytes;
}

// Reads `count` values of every output column into `out` (float outputs widened).
void read_outputs(const KernelState& state, DeviceEntry& device, std::size_t count,
                  std::span<const ir::OutputColumn> out) {
    const std::size_t bytes = count * (state.fp64 ? sizeof(double) : sizeof(float));
    std::vector<float> staging(state.fp64 ? 0 : count);
    auto read = [&](cl_mem from, double* to) {
        void* into = state.fp64 ? static_cast<void*>(to) : static_cast<void*>(staging.data());
        check(clEnqueueReadBuffer(device.queue, from, CL_TRUE, 0, bytes, into, 0, nullptr, nullptr),
              "reading the outputs");
        if (!state.fp64) {
            std::copy(staging.begin(), staging.end(), to);
        }
    };
    std::size_t c = 0;
    for (std::size_t j = 0; j < state.program.outputs.size(); ++j) {
        read(state.outputs[c++], out[j].re);
        const bool complex =
            state.program.at(state.program.outputs[j]).kind == ir::ValueKind::kComplex;
        if (complex && out[j].im != nullptr) {
            read(state.outputs[c], out[j].im);
        } else if (out[j].im != nullptr) {
            std::fill(out[j].im, out[j].im + count, 0.0);
        }
        c += complex ? 1U : 0U;
    }
}

// Queues the invariant kernel and the event kernel for events [begin, begin + count), whose
// outputs stay in state.outputs.
void enqueue_events(KernelState& state, DeviceEntry& device, std::span<const double> params,
                    const ir::ColumnView& inputs, std::size_t begin, std::size_t count,
                    std::size_t work_group_size, std::size_t resident_budget) {
    const ir::Program& program = state.program;
    const bool float_inputs = state.precision == ir::Precision::kF32;
    launch_invariants(state, device, params);
    cl_uint arg = 0;
    set_arg(state.cl_kern, arg++, state.invariants);
    for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
        const ir::InputColumn& column = inputs.columns[slot];
        set_arg(state.cl_kern, arg++,
                resident_column(device, column.re, column.re32, inputs.events, float_inputs,
                                resident_budget));
        if (program.inputs[slot].kind == ir::ValueKind::kComplex) {
            set_arg(state.cl_kern, arg++,
                    resident_column(device, column.im, column.im32, inputs.events, float_inputs,
                                    resident_budget));
        }
    }
    ensure_outputs(state, device, count);
    for (const cl_mem& m : state.outputs) {
        set_arg(state.cl_kern, arg++, m);
    }
    const auto first = static_cast<cl_long>(begin);
    const auto n = static_cast<cl_long>(count);
    check(clSetKernelArg(state.cl_kern, arg++, sizeof(cl_long), &first), "setting begin");
    check(clSetKernelArg(state.cl_kern, arg++, sizeof(cl_long), &n), "setting count");
    launch(device, state.cl_kern, count, work_group_size, "launching the kernel");
}

// Queues laddu_reduce over the outputs enqueue_events left for `count` events from `begin`,
// then reads its lanes into `lanes` and ORs its failure flags into `bad`, chunk by chunk.
void reduce_outputs(KernelState& state, DeviceEntry& device, std::span<const double> weights,
                    std::size_t begin, std::size_t count, const Reduction& reduction,
                    std::span<double> lanes, std::span<std::uint8_t> bad,
                    std::size_t work_group_size, std::size_t resident_budget) {
    const std::size_t chunks = (count + reduction.chunk_events - 1) / reduction.chunk_events;
    const std::size_t pair = 2 * kSumLanes;
    cl_uint arg = 0;
    for (const cl_mem& m : state.outputs) {
        set_arg(state.cl_reduce, arg++, m);
    }
    set_arg(
        state.cl_reduce, arg++,
        resident_column(device, weights.data(), nullptr, weights.size(), false, resident_budget));
    const auto first = static_cast<cl_long>(begin);
    const auto n = static_cast<cl_long>(count);
    const auto chunk_events = static_cast<cl_long>(reduction.chunk_events);
    const auto term = static_cast<cl_int>(reduction.term);
    const auto sums = static_cast<cl_int>(reduction.sums);
    check(clSetKernelArg(state.cl_reduce, arg++, sizeof(cl_long), &first), "setting begin");
    check(clSetKernelArg(state.cl_reduce, arg++, sizeof(cl_long), &n), "setting count");
    check(clSetKernelArg(state.cl_reduce, arg++, sizeof(cl_long), &chunk_events),
          "setting the chunk size");
    check(clSetKernelArg(state.cl_reduce, arg++, sizeof(cl_int), &term), "setting the term");
    check(clSetKernelArg(state.cl_reduce, arg++, sizeof(cl_int), &sums), "setting the sums");
    const std::size_t lane_doubles = chunks * reduction.sums * pair;
    ensure_buffer(device, state.lanes, state.lanes_bytes, lane_doubles * sizeof(double),
                  CL_MEM_WRITE_ONLY, "allocating the reduction lanes");
    ensure_buffer(device, state.bad, state.bad_bytes, chunks * kSumLanes * sizeof(cl_int),
                  CL_MEM_WRITE_ONLY, "allocating the reduction flags");
    set_arg(state.cl_reduce, arg++, state.lanes);
    set_arg(state.cl_reduce, arg++, state.bad);
    launch(device, state.cl_reduce, chunks * kSumLanes, work_group_size, "launching the reduction");
    check(clEnqueueReadBuffer(device.queue, state.lanes, CL_TRUE, 0, lane_doubles * sizeof(double),
                              lanes.data(), 0, nullptr, nullptr),
          "reading the reduction lanes");
    std::vector<cl_int> flags(chunks * kSumLanes);
    check(clEnqueueReadBuffer(device.queue, state.bad, CL_TRUE, 0, flags.size() * sizeof(cl_int),
                              flags.data(), 0, nullptr, nullptr),
          "reading the reduction flags");
    for (std::size_t c = 0; c < chunks; ++c) {
        bad[c] = static_cast<std::uint8_t>(
            std::any_of(flags.begin() + static_cast<std::ptrdiff_t>(c * kSumLanes),
                        flags.begin() + static_cast<std::ptrdiff_t>((c + 1) * kSumLanes),
                        [](cl_int f) { return f != 0; }));
    }
}

// The checks run() and reduce() share.
void check_arguments(const ir::Program& program, ir::Precision precision,
                     std::span<const double> params, const ir::ColumnView& inputs,
                     std::size_t begin, std::size_t count) {
    if (params.size() != program.parameter_count) {
        throw EvaluationError(fmt::format("expected {} parameter values, got {}",
                                          program.parameter_count, params.size()));
    }
    ir::check_inputs(program, precision, inputs);
    if (begin + count > inputs.events) {
        throw DataError(fmt::format("gpu: events [{}, {}) exceed the {} input events", begin,
                                    begin + count, inputs.events));
    }
}

// Runs fn(device) holding the device's lock; when the device runs out of memory, frees every
// resident column (another program's may hold it) and tries once more, then gives up with a
// BackendError that says what the columns need.
template <typename Fn>
void with_device(const KernelState& state, std::size_t events, Fn&& fn) {
    DeviceEntry& device = Registry::instance().open(state.device);
    const std::lock_guard<std::mutex> lock(device.mutex);
    try {
        fn(device);
        return;
    } catch (const OutOfDeviceMemory&) {
        device.release_columns();
        clFinish(device.queue);
    }
    try {
        fn(device);
    } catch (const OutOfDeviceMemory& oom) {
        std::size_t columns = 0;
        for (const ir::InputSlot& slot : state.program.inputs) {
            columns += slot.kind == ir::ValueKind::kComplex ? 2U : 1U;
        }
        const std::size_t element =
            state.precision == ir::Precision::kF32 ? sizeof(float) : sizeof(double);
        constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
        throw BackendError(fmt::format(
            "gpu: out of device memory on device {} ({}, {:.2f} GiB) while {} ({}): the "
            "program's {} input columns of {} events need {:.2f} GiB; use precision f32 (half the "
            "bytes), split the events across processes (MPI), or run on the CPU",
            state.device, device.info.name, static_cast<double>(device.info.global_memory) / kGiB,
            oom.what(), cl_error_name(oom.code), columns, events,
            static_cast<double>(columns * events * element) / kGiB));
    }
}

// Whether kernels for `device` use doubles: when it has them, unless LADDU_GPU_NO_FP64=1 asks to
// build as for a device without them (how the tests run the float-only kernels on PoCL, and a
// way to try them before buying a GPU whose doubles are slow).
bool uses_fp64(const DeviceInfo& device) {
    const char* off = std::getenv("LADDU_GPU_NO_FP64");
    return device.fp64 && (off == nullptr || std::string_view(off) != "1");
}

struct Cache {
    std::mutex mutex;
    std::map<std::tuple<std::uint64_t, int, std::size_t, bool>,
             std::vector<std::shared_ptr<const Kernel>>>
        kernels;

    static Cache& instance() {
        static auto* cache = new Cache;  // never destroyed, like Registry
        return *cache;
    }
};

std::shared_ptr<const Kernel> build(const ir::Program& program, ir::Precision precision,
                                    std::size_t index) {
    DeviceEntry& device = Registry::instance().open(index);
    auto state = std::make_shared<KernelState>();
    state->program = program;
    state->precision = precision;
    state->device = index;
    state->fp64 = uses_fp64(device.info);
    if (precision == ir::Precision::kF64 && !state->fp64) {
        throw BackendError(fmt::format(
            "gpu: device {} ({}) has no double support (cl_khr_fp64), which precision f64 needs; "
            "use precision f32 or another device",
            index, device.info.name));
    }
    detail::OpenClSource lowered = lower(program, precision, state->fp64);
    state->source = std::move(lowered.text);
    state->invariant_slots = lowered.invariant_slots;
    const auto start = std::chrono::steady_clock::now();
    const char* text = state->source.c_str();
    const std::size_t length = state->source.size();
    cl_int error = CL_SUCCESS;
    state->cl_prog = clCreateProgramWithSource(device.context, 1, &text, &length, &error);
    check(error, "creating the OpenCL program");
    // No fast-math flags: the kernel must round like the other backends. f32 division and
    // square root are correctly rounded where the device offers it (OpenCL allows 2.5 ulp).
    const std::string options = precision == ir::Precision::kF32 && device.correctly_rounded_f32
                                    ? "-cl-fp32-correctly-rounded-divide-sqrt"
                                    : "";
    error = clBuildProgram(state->cl_prog, 1, &device.id, options.c_str(), nullptr, nullptr);
    if (error != CL_SUCCESS) {
        std::size_t size = 0;
        clGetProgramBuildInfo(state->cl_prog, device.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
        std::string log(size, '\0');
        clGetProgramBuildInfo(state->cl_prog, device.id, CL_PROGRAM_BUILD_LOG, size, log.data(),
                              nullptr);
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) {
            log.pop_back();
        }
        constexpr std::size_t kMaxLog = 4000;
        if (log.size() > kMaxLog) {
            log = log.substr(0, kMaxLog) + "\n[build log truncated]";
        }
        throw BackendError(fmt::format(
            "gpu: the OpenCL driver of device {} ({}) could not build the kernel ({}); run on the "
            "CPU (Execution 'jit' or 'cpu') and report this with the build log:\n{}",
            index, device.info.name, cl_error_name(error), log));
    }
    state->cl_invariants = clCreateKernel(state->cl_prog, "laddu_invariants", &error);
    check(error, "creating the invariant kernel");
    state->cl_kern = clCreateKernel(state->cl_prog, "laddu_kernel", &error);
    check(error, "creating the kernel");
    if (state->fp64) {
        state->cl_reduce = clCreateKernel(state->cl_prog, "laddu_reduce", &error);
        check(error, "creating the reduction kernel");
    }
    state->compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_shared<const Kernel>(std::move(state));
}

}  // namespace

}  // namespace detail

Kernel::Kernel(std::shared_ptr<detail::KernelState> state) : state_(std::move(state)) {}

const ir::Program& Kernel::program() const noexcept {
    return state_->program;
}

ir::Precision Kernel::precision() const noexcept {
    return state_->precision;
}

std::size_t Kernel::device() const noexcept {
    return state_->device;
}

const std::string& Kernel::source() const noexcept {
    return state_->source;
}

double Kernel::compile_seconds() const noexcept {
    return state_->compile_seconds;
}

void Kernel::run(std::span<const double> params, const ir::ColumnView& inputs, std::size_t begin,
                 std::size_t count, std::span<const ir::OutputColumn> out,
                 std::size_t work_group_size, std::size_t resident_budget) const {
    detail::check_arguments(state_->program, state_->precision, params, inputs, begin, count);
    if (out.size() != state_->program.outputs.size()) {
        throw DataError(fmt::format("gpu: {} output columns given for {} outputs", out.size(),
                                    state_->program.outputs.size()));
    }
    if (count == 0) {
        return;
    }
    detail::with_device(*state_, inputs.events, [&](detail::DeviceEntry& device) {
        detail::enqueue_events(*state_, device, params, inputs, begin, count, work_group_size,
                               resident_budget);
        detail::read_outputs(*state_, device, count, out);
    });
}

bool Kernel::reduces() const noexcept {
    return state_->cl_reduce != nullptr;
}

void Kernel::reduce(std::span<const double> params, const ir::ColumnView& inputs,
                    std::span<const double> weights, std::size_t begin, std::size_t count,
                    const Reduction& reduction, std::span<double> lanes,
                    std::span<std::uint8_t> bad, std::size_t work_group_size,
                    std::size_t resident_budget) const {
    const ir::Program& program = state_->program;
    detail::check_arguments(program, state_->precision, params, inputs, begin, count);
    if (!reduces()) {
        throw BackendError(fmt::format(
            "gpu: device {} reduces on the device only with doubles (cl_khr_fp64); sum the "
            "outputs of run() on the host instead",
            state_->device));
    }
    if (reduction.sums == 0 || reduction.sums > program.outputs.size()) {
        throw DataError(fmt::format("gpu: a reduction sums between 1 and {} outputs, not {}",
                                    program.outputs.size(), reduction.sums));
    }
    for (std::size_t j = 1; j < reduction.sums; ++j) {
        if (program.at(program.outputs[j]).kind != ir::ValueKind::kReal) {
            throw DataError(fmt::format(
                "gpu: output {} is Complex; a reduction sums Real gradient outputs", j));
        }
    }
    if (reduction.chunk_events == 0 || weights.size() != inputs.events) {
        throw DataError(fmt::format("gpu: a reduction needs chunks of at least one event and one "
                                    "weight per input event ({} weights for {} events)",
                                    weights.size(), inputs.events));
    }
    const std::size_t chunks = (count + reduction.chunk_events - 1) / reduction.chunk_events;
    if (lanes.size() < chunks * reduction.sums * 2 * kSumLanes || bad.size() < chunks) {
        throw DataError(fmt::format("gpu: {} chunks of {} sums need {} lane doubles and {} flags",
                                    chunks, reduction.sums, chunks * reduction.sums * 2 * kSumLanes,
                                    chunks));
    }
    if (count == 0) {
        return;
    }
    detail::with_device(*state_, inputs.events, [&](detail::DeviceEntry& device) {
        detail::enqueue_events(*state_, device, params, inputs, begin, count, work_group_size,
                               resident_budget);
        detail::reduce_outputs(*state_, device, weights, begin, count, reduction, lanes, bad,
                               work_group_size, resident_budget);
    });
}

std::shared_ptr<const Kernel> compile(const ir::Program& program, ir::Precision precision,
                                      std::size_t device_index) {
    const Expected<void> valid = ir::validate(program);
    if (!valid) {
        throw CompileError("gpu: invalid program: " + valid.error().message);
    }
    detail::Cache& cache = detail::Cache::instance();
    const bool fp64 = device_index < detail::Registry::instance().entries().size() &&
                      detail::uses_fp64(device(device_index));
    const auto key =
        std::make_tuple(ir::hash(program), static_cast<int>(precision), device_index, fp64);
    {
        const std::lock_guard<std::mutex> lock(cache.mutex);
        for (const auto& kernel : cache.kernels[key]) {
            if (ir::same_computation(kernel->program(), program)) {
                return kernel;
            }
        }
    }
    // Built outside the lock (PoCL takes a second or more); two threads may both build it once.
    std::shared_ptr<const Kernel> kernel = detail::build(program, precision, device_index);
    const std::lock_guard<std::mutex> lock(cache.mutex);
    cache.kernels[key].push_back(kernel);
    return kernel;
}

std::size_t cache_size() noexcept {
    detail::Cache& cache = detail::Cache::instance();
    const std::lock_guard<std::mutex> lock(cache.mutex);
    std::size_t n = 0;
    for (const auto& [key, kernels] : cache.kernels) {
        n += kernels.size();
    }
    return n;
}

void clear_cache() noexcept {
    {
        detail::Cache& cache = detail::Cache::instance();
        const std::lock_guard<std::mutex> lock(cache.mutex);
        cache.kernels.clear();
    }
    for (detail::DeviceEntry* entry : detail::Registry::instance().entries()) {
        const std::lock_guard<std::mutex> lock(entry->mutex);
        entry->release_columns();
    }
}

std::size_t resident_bytes(std::size_t device_index) noexcept {
    const std::vector<detail::DeviceEntry*> all = detail::Registry::instance().entries();
    if (device_index >= all.size()) {
        return 0;
    }
    const std::lock_guard<std::mutex> lock(all[device_index]->mutex);
    return all[device_index]->resident_bytes;
}

}  // namespace laddu::gpu
