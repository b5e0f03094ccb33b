#include "record_stream_reuse.h"

#include <c10/cuda/CUDAAllocatorConfig.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdlib>
#include <exception>

namespace nimble::accelerate {
namespace {

constexpr const char* kKey = "graph_capture_record_stream_reuse";

// The settings string a scope left behind where the process had none: its key is Nimble's, not the
// process's.
std::string& LeftBehind() {
  static std::string settings;
  return settings;
}

}  // namespace

RecordStreamReuseScope::RecordStreamReuseScope() {
  for (const char* variable : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && std::string(value).find(kKey) != std::string::npos) return;
  }
  if (Active()) return;
  // Parsing resets the keys a settings string leaves out, so the process's last settings go along.
  previous_ = c10::CachingAllocator::getAllocatorSettings();
  if (!LeftBehind().empty() && previous_ == LeftBehind()) previous_.clear();
  if (previous_.find(kKey) != std::string::npos) return;
  c10::CachingAllocator::setAllocatorSettings((previous_.empty() ? "" : previous_ + ",") + kKey + ":True");
  set_here_ = true;
}

RecordStreamReuseScope::~RecordStreamReuseScope() {
  if (!set_here_) return;
  try {
    if (previous_.empty()) {
      LeftBehind() = std::string(kKey) + ":False";
      c10::CachingAllocator::setAllocatorSettings(LeftBehind());
    } else {
      c10::CachingAllocator::setAllocatorSettings(previous_);
    }
  } catch (const std::exception&) {
  }
}

bool RecordStreamReuseScope::Active() {
  return c10::cuda::CUDACachingAllocator::CUDAAllocatorConfig::graph_capture_record_stream_reuse();
}

}  // namespace nimble::accelerate
