// The allocator's statistics are per device and cumulative; a window subtracts what was resident when
// it began. Emptying the cache first matters: the allocator keeps freed blocks, and a phase that finds
// them cached shows less reserved memory than it needs on its own. The driver's memory for CUDA
// graphs' memory nodes (which PyTorch's cudaMallocAsync backend would make of a capture's allocations)
// is held outside the allocator's pool and added to the reserved bytes; it reads 0 under the caching
// allocator, whose captures have no memory nodes, and captures refuse the other backend.
#include "nimble/accelerate/device_memory.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>

#include "cuda_status.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using c10::CachingAllocator::StatType;

struct Sample {
  int64_t allocated = 0, reserved = 0, peak_allocated = 0, peak_reserved = 0;
};

// The driver's memory for graph allocations (memory nodes): now and its high-water mark.
StatusOr<std::pair<int64_t, int64_t>> GraphMemory(int device) {
  cuuint64_t current = 0, high = 0;
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &current),
                                    "reading the GPU's graph memory"));
  NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemHigh, &high),
                                    "reading the GPU's graph memory"));
  return std::make_pair(static_cast<int64_t>(current), static_cast<int64_t>(high));
}

StatusOr<Sample> SampleDevice(int device) {
  NIMBLE_ASSIGN_OR_RETURN(const auto graph, GraphMemory(device));
  try {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
    const auto all = static_cast<size_t>(StatType::AGGREGATE);
    // The two high-water marks may fall at different moments; their sum bounds the phase's peak.
    return Sample{stats.allocated_bytes[all].current, stats.reserved_bytes[all].current + graph.first,
                  stats.allocated_bytes[all].peak, stats.reserved_bytes[all].peak + graph.second};
  } catch (const std::exception& e) {
    return Internal("GPU memory statistics: " + TorchMessage(e));
  }
}

// Graph memory no live graph holds goes back to the driver, and its high-water mark restarts (the
// driver accepts only 0 there).
Status ResetGraphMemory(int device, bool trim) {
  if (trim) NIMBLE_RETURN_IF_ERROR(CudaStatus(cudaDeviceGraphMemTrim(device), "returning unused graph memory"));
  cuuint64_t zero = 0;
  return CudaStatus(cudaDeviceSetGraphMemAttribute(device, cudaGraphMemAttrReservedMemHigh, &zero),
                    "resetting the GPU's graph-memory peak");
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
  return ResetGraphMemory(device, release_cache);
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
  return CudaStatus(cudaDeviceGraphMemTrim(device_), "returning unused graph memory");
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
