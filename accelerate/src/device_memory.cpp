// The allocator's statistics are per device and cumulative; a window subtracts what was resident when
// it began. Emptying the cache first matters: the allocator keeps freed blocks, and a phase that finds
// them cached shows less reserved memory than it needs on its own.
#include "nimble/accelerate/device_memory.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include <algorithm>

#include "cuda_status.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using c10::CachingAllocator::StatType;

struct Sample {
  int64_t allocated = 0, reserved = 0, peak_allocated = 0, peak_reserved = 0;
};

StatusOr<Sample> SampleDevice(int device) {
  try {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
    const auto all = static_cast<size_t>(StatType::AGGREGATE);
    return Sample{stats.allocated_bytes[all].current, stats.reserved_bytes[all].current,
                  stats.allocated_bytes[all].peak, stats.reserved_bytes[all].peak};
  } catch (const std::exception& e) {
    return Internal("GPU memory statistics: " + TorchMessage(e));
  }
}

Status ResetPeaks(int device, bool release_cache) {
  try {
    if (release_cache) {
      NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "waiting for the GPU before a memory reading"));
      c10::cuda::CUDACachingAllocator::emptyCache();
    }
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
  } catch (const std::exception& e) {
    return Internal("GPU memory statistics: " + TorchMessage(e));
  }
  return OkStatus();
}

}  // namespace

StatusOr<MemoryWindow> MemoryWindow::Begin(int device, bool release_cache) {
  if (c10::cuda::device_count() == 0) return Unavailable("no CUDA device: GPU memory cannot be read");
  NIMBLE_RETURN_IF_ERROR(ResetPeaks(device, release_cache));
  NIMBLE_ASSIGN_OR_RETURN(Sample start, SampleDevice(device));
  return MemoryWindow(device, release_cache, start.allocated, start.reserved);
}

Status MemoryWindow::ReleaseCache() const {
  if (!release_cache_) return OkStatus();
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "waiting for the GPU before releasing its cache"));
  try {
    c10::cuda::CUDACachingAllocator::emptyCache();  // keeps the peaks: they belong to the phase
  } catch (const std::exception& e) {
    return Internal("GPU memory: emptying the cache: " + TorchMessage(e));
  }
  return OkStatus();
}

StatusOr<MemoryUse> MemoryWindow::Read() const {
  NIMBLE_ASSIGN_OR_RETURN(Sample now, SampleDevice(device_));
  MemoryUse use;
  use.peak_allocated_bytes = std::max<int64_t>(0, now.peak_allocated - resident_allocated_);
  use.peak_reserved_bytes = std::max<int64_t>(0, now.peak_reserved - resident_reserved_);
  use.held_bytes = std::max<int64_t>(0, now.reserved - resident_reserved_);
  return use;
}


}  // namespace nimble::accelerate
