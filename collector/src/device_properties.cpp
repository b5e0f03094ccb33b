#include "nimble/collector/device_properties.h"

#include <cuda.h>
#include <dlfcn.h>

#include <array>

namespace nimble::collector {
namespace {

// The few driver entry points needed, taken from the libcuda the program already loaded.
struct DriverApi {
  CUresult (*get_count)(int*) = nullptr;
  CUresult (*get_device)(CUdevice*, int) = nullptr;
  CUresult (*get_name)(char*, int, CUdevice) = nullptr;
  CUresult (*get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*total_mem)(size_t*, CUdevice) = nullptr;
  CUresult (*error_name)(CUresult, const char**) = nullptr;
};

template <typename Fn>
bool Resolve(void* lib, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  return fn != nullptr;
}

StatusOr<DriverApi> LoadDriver() {
  // RTLD_NOLOAD: only a driver the program loaded itself; the collector never initialises CUDA.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return Unavailable("libcuda.so.1 is not loaded in this process");
  DriverApi api;
  const bool ok = Resolve(lib, "cuDeviceGetCount", api.get_count) && Resolve(lib, "cuDeviceGet", api.get_device) &&
                  Resolve(lib, "cuDeviceGetName", api.get_name) &&
                  Resolve(lib, "cuDeviceGetAttribute", api.get_attribute) &&
                  Resolve(lib, "cuDeviceTotalMem_v2", api.total_mem) &&
                  Resolve(lib, "cuGetErrorName", api.error_name);
  if (!ok) return Unavailable(std::string("libcuda.so.1 lacks a driver entry point: ") + dlerror());
  return api;
}

Status DriverError(const DriverApi& api, CUresult result, const std::string& call) {
  const char* name = nullptr;
  if (api.error_name(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUDA error";
  return Internal(call + " failed: " + name);
}

StatusOr<DeviceDescription> Describe(const DriverApi& api, int ordinal) {
  CUdevice dev = 0;
  if (CUresult r = api.get_device(&dev, ordinal); r != CUDA_SUCCESS) {
    return DriverError(api, r, "cuDeviceGet(" + std::to_string(ordinal) + ")");
  }
  DeviceDescription d;
  d.info.id = DeviceId(ordinal);
  std::array<char, 256> name{};
  if (CUresult r = api.get_name(name.data(), static_cast<int>(name.size()), dev); r != CUDA_SUCCESS) {
    return DriverError(api, r, "cuDeviceGetName");
  }
  d.name = name.data();
  const std::array<std::pair<CUdevice_attribute, int32_t*>, 8> attributes{{
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.info.compute_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.info.compute_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.info.sm_count},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &d.info.max_threads_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &d.info.max_blocks_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &d.info.max_registers_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &d.info.max_shared_bytes_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d.info.max_threads_per_block},
  }};
  for (const auto& [attribute, field] : attributes) {
    if (CUresult r = api.get_attribute(field, attribute, dev); r != CUDA_SUCCESS) {
      return DriverError(api, r, "cuDeviceGetAttribute(" + std::to_string(static_cast<int>(attribute)) + ")");
    }
  }
  // The clock rate is informational and deprecated in newer drivers: 0 when it is not reported.
  if (api.get_attribute(&d.info.core_clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) != CUDA_SUCCESS) {
    d.info.core_clock_khz = 0;
  }
  size_t bytes = 0;
  if (CUresult r = api.total_mem(&bytes, dev); r != CUDA_SUCCESS) return DriverError(api, r, "cuDeviceTotalMem");
  d.info.global_memory_bytes = static_cast<int64_t>(bytes);
  return d;
}

}  // namespace

StatusOr<std::vector<DeviceDescription>> ReadDeviceProperties() {
  NIMBLE_ASSIGN_OR_RETURN(const DriverApi api, LoadDriver());
  int count = 0;
  if (CUresult r = api.get_count(&count); r != CUDA_SUCCESS) return DriverError(api, r, "cuDeviceGetCount");
  std::vector<DeviceDescription> devices;
  for (int i = 0; i < count; ++i) {
    NIMBLE_ASSIGN_OR_RETURN(DeviceDescription d, Describe(api, i));
    devices.push_back(std::move(d));
  }
  return devices;
}

}  // namespace nimble::collector
