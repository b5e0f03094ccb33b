#include "capture_rules.h"

#include <algorithm>
#include <array>

namespace nimble::accelerate {
namespace {

// Their output size is only known once the kernel has looked at the data; ATen syncs to learn it.
constexpr std::array<std::string_view, 12> kDataDependentKinds = {
    "aten::_unique",          "aten::_unique2",     "aten::argwhere",   "aten::bincount",
    "aten::masked_select",    "aten::nonzero",      "aten::nonzero_numpy", "aten::repeat_interleave",
    "aten::unique_consecutive", "aten::unique_dim", "aten::unique_dim_consecutive", "aten::unique",
};

// They turn a tensor's value into a host number or list. On 0-dim CPU tensors (the shape arithmetic
// of traced models) that costs nothing; on a GPU tensor it waits for the device.
constexpr std::array<std::string_view, 13> kHostReadKinds = {
    "aten::Bool",          "aten::Float",        "aten::FloatImplicit", "aten::Int",
    "aten::IntImplicit",   "aten::ScalarImplicit", "aten::_local_scalar_dense", "aten::allclose",
    "aten::equal",         "aten::is_nonzero",   "aten::item",          "aten::tolist",
    "prim::tolist",
};

template <size_t N>
bool Contains(std::array<std::string_view, N> table, std::string_view kind) {
  return std::find(table.begin(), table.end(), kind) != table.end();
}

}  // namespace

CaptureRule CaptureRuleForKind(std::string_view kind) {
  if (Contains(kDataDependentKinds, kind)) return CaptureRule::kDataDependentShape;
  if (Contains(kHostReadKinds, kind)) return CaptureRule::kHostReadIfDevice;
  if (kind == "aten::cpu" || kind == "aten::cuda" || kind == "aten::to") return CaptureRule::kTransfer;
  return CaptureRule::kAllowed;
}

std::string_view CaptureRuleReason(CaptureRule rule) {
  switch (rule) {
    case CaptureRule::kAllowed: return "capturable";
    case CaptureRule::kDataDependentShape: return "its output shape depends on the data";
    case CaptureRule::kHostReadIfDevice: return "it reads a GPU value on the host (a device sync)";
    case CaptureRule::kTransfer:
      return "it copies between the CPU and the GPU and waits for the copy on the host (a sync, not allowed while "
             "capturing)";
  }
  return "unknown";
}

}  // namespace nimble::accelerate
