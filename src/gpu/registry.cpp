// Device discovery and the OpenCL error checks (registry.hpp), and gpu::devices() / device().
#include "registry.hpp"

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::gpu {

namespace detail {

namespace {

// The loader's "no platform" (cl_khr_icd's CL_PLATFORM_NOT_FOUND_KHR).
constexpr cl_int kPlatformNotFound = -1001;

bool is_out_of_memory(cl_int code) {
    return code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY ||
           code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_INVALID_BUFFER_SIZE;
}

std::string device_string(cl_device_id id, cl_device_info what) {
    std::size_t size = 0;
    if (clGetDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
        return {};
    }
    std::string text(size, '\0');
    clGetDeviceInfo(id, what, size, text.data(), nullptr);
    while (!text.empty() && text.back() == '\0') {
        text.pop_back();
    }
    return text;
}

template <typename T>
T device_value(cl_device_id id, cl_device_info what) {
    T value{};
    clGetDeviceInfo(id, what, sizeof(T), &value, nullptr);
    return value;
}

}  // namespace

std::string cl_error_name(cl_int code) {
    switch (code) {
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    default:
        return fmt::format("OpenCL error {}", code);
    }
}

void check(cl_int code, const char* what) {
    if (code == CL_SUCCESS) {
        return;
    }
    if (is_out_of_memory(code)) {
        throw OutOfDeviceMemory(code, what);
    }
    throw BackendError(fmt::format("gpu: {} failed: {}", what, cl_error_name(code)));
}

void DeviceEntry::release_columns() {
    for (auto& [key, column] : columns) {
        clReleaseMemObject(column.buffer);
    }
    columns.clear();
    resident_bytes = 0;
}

Registry& Registry::instance() {
    static auto* registry = new Registry;
    return *registry;
}

std::vector<DeviceEntry*> Registry::entries() {
    std::vector<DeviceEntry*> all;
    all.reserve(devices_.size());
    for (auto& entry : devices_) {
        all.push_back(entry.get());
    }
    return all;
}

DeviceEntry& Registry::open(std::size_t index) {
    if (index >= devices_.size()) {
        throw BackendError(describe_missing(index));
    }
    DeviceEntry& entry = *devices_[index];
    std::call_once(entry.opened, [&entry] {
        cl_int error = CL_SUCCESS;
        entry.context = clCreateContext(nullptr, 1, &entry.id, nullptr, nullptr, &error);
        if (error == CL_SUCCESS) {
            entry.queue = clCreateCommandQueue(entry.context, entry.id, 0, &error);
        }
        entry.open_error = error;
    });
    if (entry.open_error != CL_SUCCESS) {
        throw BackendError(fmt::format("gpu: could not open OpenCL device {} ({}): {}", index,
                                       entry.info.name, cl_error_name(entry.open_error)));
    }
    return entry;
}

std::string Registry::describe_missing(std::size_t index) const {
    if (devices_.empty()) {
        return fmt::format(
            "gpu: no OpenCL device {}: no OpenCL platform is installed{}. Install the GPU "
            "vendor's OpenCL driver (NVIDIA: nvidia-opencl-icd; AMD: the ROCm OpenCL "
            "runtime; Intel: intel-opencl-icd), or pocl-opencl-icd to run on the CPU; "
            "`clinfo -l` lists what the OpenCL loader finds",
            index, platform_error_.empty() ? "" : " (" + platform_error_ + ")");
    }
    std::string list;
    for (const auto& entry : devices_) {
        list += fmt::format("{}{}: {} ({})", list.empty() ? "" : ", ", entry->info.index,
                            entry->info.name, entry->info.platform);
    }
    return fmt::format("gpu: no OpenCL device {}: there {} {} device{}: {}; pass one of "
                       "these indices (gpu::devices(), ld.gpu.devices())",
                       index, devices_.size() == 1 ? "is" : "are", devices_.size(),
                       devices_.size() == 1 ? "" : "s", list);
}

Registry::Registry() {
    cl_uint platform_count = 0;
    const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
    if (status != CL_SUCCESS || platform_count == 0) {
        if (status != CL_SUCCESS && status != kPlatformNotFound) {
            platform_error_ = cl_error_name(status);
        }
        return;
    }
    std::vector<cl_platform_id> platforms(platform_count);
    clGetPlatformIDs(platform_count, platforms.data(), nullptr);
    for (cl_platform_id platform : platforms) {
        std::size_t size = 0;
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size);
        std::string platform_name(size, '\0');
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, platform_name.data(), nullptr);
        while (!platform_name.empty() && platform_name.back() == '\0') {
            platform_name.pop_back();
        }
        cl_uint count = 0;
        if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS ||
            count == 0) {
            continue;
        }
        std::vector<cl_device_id> ids(count);
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr);
        for (cl_device_id id : ids) {
            auto entry = std::make_unique<DeviceEntry>();
            entry->platform = platform;
            entry->id = id;
            DeviceInfo& info = entry->info;
            info.index = devices_.size();
            info.name = device_string(id, CL_DEVICE_NAME);
            info.vendor = device_string(id, CL_DEVICE_VENDOR);
            info.platform = platform_name;
            info.version = device_string(id, CL_DEVICE_VERSION);
            info.global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
            info.max_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
            info.vendor_id = device_value<cl_uint>(id, CL_DEVICE_VENDOR_ID);
            info.max_work_group_size = device_value<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
            info.fp64 = device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
            info.is_gpu =
                (device_value<cl_device_type>(id, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
            entry->correctly_rounded_f32 =
                (device_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG) &
                 CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
            devices_.push_back(std::move(entry));
        }
    }
}

}  // namespace detail

std::vector<DeviceInfo> devices() {
    std::vector<DeviceInfo> all;
    for (const detail::DeviceEntry* entry : detail::Registry::instance().entries()) {
        all.push_back(entry->info);
    }
    return all;
}

DeviceInfo device(std::size_t index) {
    const std::vector<detail::DeviceEntry*> all = detail::Registry::instance().entries();
    if (index >= all.size()) {
        throw BackendError(detail::Registry::instance().describe_missing(index));
    }
    return all[index]->info;
}

}  // namespace laddu::gpu
