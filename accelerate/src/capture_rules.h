// The deny lists of the ahead-of-time capture, beside op_kinds.h's fold lists: node kinds a CUDA
// graph cannot replay, and why. Looked up by qualified kind ("aten::nonzero"). Constant tables;
// thread-safe.
#pragma once

#include <string_view>

namespace nimble::accelerate {

enum class CaptureRule {
  kAllowed,
  kDataDependentShape,  // output size depends on tensor values: a replay would keep the captured size
  kHostReadIfDevice,    // reads a tensor's value on the host: a sync, refused when the tensor is on the GPU
  kTransfer,            // aten::cpu, aten::cuda, aten::to: refused when it copies a GPU tensor to the
                        // CPU, or a CPU tensor to the GPU and waits for it (non_blocking false): a sync
};

CaptureRule CaptureRuleForKind(std::string_view kind);

// Why a rule refuses, for messages ("output shape depends on the data").
std::string_view CaptureRuleReason(CaptureRule rule);

}  // namespace nimble::accelerate
