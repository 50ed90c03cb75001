// src/gpu/registry.hpp (private to gpu): the OpenCL devices of this process, each with its
// context, in-order queue and resident input columns, and the error checks every OpenCL call
// goes through. With device.cpp the only code that includes the OpenCL headers.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <laddu/gpu/gpu.hpp>

#include <CL/cl.h>

namespace laddu::gpu::detail {

/// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES", or "OpenCL error -5").
[[nodiscard]] std::string cl_error_name(cl_int code);

/// Thrown by check() when the device is out of memory (Kernel's runs evict the resident columns
/// and try once more).
struct OutOfDeviceMemory : std::runtime_error {
    OutOfDeviceMemory(cl_int error, const std::string& doing)
        : std::runtime_error(doing), code(error) {}

    cl_int code;
};

/// Nothing for CL_SUCCESS; OutOfDeviceMemory for the codes that mean it; else BackendError
/// "gpu: <what> failed: <code>".
void check(cl_int code, const char* what);

/// An input column copied to the device, valid while its host memory holds the same values.
struct Resident {
    cl_mem buffer = nullptr;
    std::size_t bytes = 0;
    std::uint64_t fingerprint = 0;
    std::uint64_t last_use = 0;
};

/// (host address, element count, element size).
using ColumnKey = std::tuple<const void*, std::size_t, std::size_t>;

/// One device and what this process keeps on it.
struct DeviceEntry {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    DeviceInfo info;
    bool correctly_rounded_f32 = false;

    // Created on first use; guarded by `mutex` afterwards (the queue, the resident columns and
    // every kernel's arguments and scratch buffers of this device).
    std::once_flag opened;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    cl_int open_error = CL_SUCCESS;
    std::mutex mutex;
    std::map<ColumnKey, Resident> columns;
    std::size_t resident_bytes = 0;
    std::uint64_t tick = 0;

    /// Frees every resident column (the caller holds `mutex`).
    void release_columns();
};

/// Every device of every platform, found once per process.
class Registry {
public:
    /// The process's registry. Never destroyed: kernels cached until exit hold OpenCL objects of
    /// these devices, and releasing them from static destructors races the driver's teardown.
    static Registry& instance();

    /// Every device, in index order.
    [[nodiscard]] std::vector<DeviceEntry*> entries();

    /// Device `index`, opened (context and queue made); BackendError naming the devices.
    DeviceEntry& open(std::size_t index);

    /// Why there is no device `index`, and what to do.
    [[nodiscard]] std::string describe_missing(std::size_t index) const;

    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;
    Registry(Registry&&) = delete;
    Registry& operator=(Registry&&) = delete;

private:
    Registry();
    ~Registry() = default;  // the driver frees its objects at exit; releasing them here races it

    std::vector<std::unique_ptr<DeviceEntry>> devices_;
    std::string platform_error_;
};

}  // namespace laddu::gpu::detail
