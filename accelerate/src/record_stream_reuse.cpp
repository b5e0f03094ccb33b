#include "record_stream_reuse.h"

#include <c10/cuda/CUDAAllocatorConfig.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstdlib>
#include <exception>

namespace nimble::accelerate {
namespace {

constexpr const char* kKey = "graph_capture_record_stream_reuse";

// The settings string the last scope left behind, and the process's settings it stood for: a later scope
// that finds the first takes the second for the process's own.
std::string& LeftBehind() {
  static std::string settings;
  return settings;
}
std::string& StoodFor() {
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
  if (!LeftBehind().empty() && previous_ == LeftBehind()) previous_ = StoodFor();
  if (previous_.find(kKey) != std::string::npos) return;
  c10::CachingAllocator::setAllocatorSettings((previous_.empty() ? "" : previous_ + ",") + kKey + ":True");
  set_here_ = true;
}

RecordStreamReuseScope::~RecordStreamReuseScope() {
  if (!set_here_) return;
  // The parser leaves a key the string does not name as it was, so the key is turned off by name.
  try {
    StoodFor() = previous_;
    LeftBehind() = (previous_.empty() ? "" : previous_ + ",") + kKey + ":False";
    c10::CachingAllocator::setAllocatorSettings(LeftBehind());
  } catch (const std::exception&) {
  }
}

bool RecordStreamReuseScope::Active() {
  return c10::cuda::CUDACachingAllocator::CUDAAllocatorConfig::graph_capture_record_stream_reuse();
}

}  // namespace nimble::accelerate
