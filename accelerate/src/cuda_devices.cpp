#include "nimble/accelerate/cuda_devices.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/core/Device.h>
#include <c10/cuda/CUDAFunctions.h>

#include "torch_errors.h"

namespace nimble::accelerate {

int CudaDeviceCount() {
  // device_count() answers 0, without throwing, when the driver is missing or finds no device.
  return static_cast<int>(c10::cuda::device_count());
}

StatusOr<std::string> CudaDeviceName(const std::string& device) {
  c10::DeviceIndex index = 0;
  try {
    const c10::Device parsed(device);
    if (!parsed.is_cuda()) return InvalidArgument("device '" + device + "' is not a CUDA device");
    index = parsed.has_index() ? parsed.index() : c10::cuda::current_device();
  } catch (const std::exception& e) {
    return InvalidArgument("bad device '" + device + "': " + TorchMessage(e));
  }
  const int count = CudaDeviceCount();
  if (index < 0 || index >= count) {
    return Unavailable("device '" + device + "' does not exist (" + std::to_string(count) + " CUDA device(s))");
  }
  try {
    return std::string(at::cuda::getDeviceProperties(index)->name);
  } catch (const std::exception& e) {
    return Unavailable("cannot read the properties of " + device + ": " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate
