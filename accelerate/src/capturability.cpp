// The pre-capture check: deny-listed kinds (capture_rules.h) are refused outright, or, for host reads
// and transfers, only when they touch the GPU. A value is host-side when it is a number, a CPU
// constant, made from a number (prim::NumToTensor: traced models' shape arithmetic), or computed
// only from host-side tensors with no CUDA device argument. A device argument is CUDA when it is a
// CUDA constant or the device of a GPU tensor (`x.device`, prim::device).
#include "nimble/accelerate/capturability.h"

#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <string>
#include <unordered_map>

#include "capture_rules.h"
#include "loaded_model_impl.h"
#include "node_names.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using torch::jit::Node;
using torch::jit::Value;

bool IsTensor(const Value* value) { return value->type()->isSubtypeOf(*c10::TensorType::get()); }

// Where tensors of the model live, decided once per value. The model is captured on the GPU, so its
// inputs are device tensors.
class HostValues {
 public:
  // Values are seen in node order, so every input was decided before its user.
  bool OnDevice(const Value* value) {
    if (!IsTensor(value)) return false;
    auto it = on_device_.find(value);
    if (it != on_device_.end()) return it->second;
    const bool result = Decide(value);
    on_device_[value] = result;
    return result;
  }

  // For a Device-typed value: true for CUDA, false for the CPU, nullopt when not a device or unknown.
  std::optional<bool> IsCudaDevice(const Value* value) {
    if (value->node()->kind() == c10::prim::device) return OnDevice(value->node()->input(0));
    const auto constant = torch::jit::toIValue(value);
    if (!constant || !constant->isDevice()) return std::nullopt;
    return constant->toDevice().is_cuda();
  }

 private:
  bool Decide(const Value* value) {
    const Node* node = value->node();
    if (node->kind() == c10::prim::Param) return true;
    if (node->kind() == c10::prim::NumToTensor) return false;
    if (node->kind() == c10::prim::Constant) {
      const auto constant = torch::jit::toIValue(value);
      return constant && constant->isTensor() && !constant->toTensor().is_cpu();
    }
    for (const Value* input : node->inputs()) {
      if (IsCudaDevice(input).value_or(false)) return true;
      if (IsTensor(input) && OnDevice(input)) return true;
    }
    return false;  // only host-side inputs, or none and no CUDA device argument
  }
  std::unordered_map<const Value*, bool> on_device_;
};

enum class Target { kUnchanged, kHost, kDevice };

// Where aten::cpu / aten::cuda / aten::to sends its first input: a device argument (constant or
// `x.device`) or the device of the tensor it matches (`to(other)`).
Target TransferTarget(const Node& node, HostValues& host) {
  const std::string_view kind = node.kind().toQualString();
  if (kind == "aten::cpu") return Target::kHost;
  if (kind == "aten::cuda") return Target::kDevice;
  for (size_t i = 1; i < node.inputs().size(); ++i) {
    const Value* input = node.inputs()[i];
    if (const std::optional<bool> cuda = host.IsCudaDevice(input)) return *cuda ? Target::kDevice : Target::kHost;
    if (IsTensor(input)) return host.OnDevice(input) ? Target::kDevice : Target::kHost;
  }
  return Target::kUnchanged;
}

// False only for a constant non_blocking=True; aten::cuda and aten::cpu have no such argument.
bool WaitsForCopy(const Node& node) {
  const c10::FunctionSchema* schema = node.maybeSchema();
  if (schema == nullptr) return true;
  const std::optional<int> index = schema->argumentIndexWithName("non_blocking");
  if (!index || static_cast<size_t>(*index) >= node.inputs().size()) return true;
  const auto constant = torch::jit::toIValue(node.inputs()[static_cast<size_t>(*index)]);
  return !(constant && constant->isBool() && constant->toBool());
}

// A GPU tensor copied to the CPU always waits for the device; a CPU tensor copied to the GPU with
// non_blocking=False makes the host wait for the copy (ATen's memcpy_and_sync).
bool SyncingTransfer(const Node& node, HostValues& host) {
  if (node.inputs().empty()) return false;
  const bool from_device = host.OnDevice(node.inputs()[0]);
  switch (TransferTarget(node, host)) {
    case Target::kUnchanged: return false;
    case Target::kHost: return from_device;
    case Target::kDevice: return !from_device && WaitsForCopy(node);
  }
  return false;
}

bool Refused(const Node& node, CaptureRule rule, HostValues& host) {
  switch (rule) {
    case CaptureRule::kAllowed: return false;
    case CaptureRule::kDataDependentShape: return true;
    case CaptureRule::kTransfer: return SyncingTransfer(node, host);
    case CaptureRule::kHostReadIfDevice:
      for (const Value* input : node.inputs()) {
        if (host.OnDevice(input)) return true;
      }
      return false;
  }
  return false;
}

}  // namespace

Status CheckCapturable(const LoadedModel& model) {
  if (model.empty()) return InvalidArgument("capture check: no model");
  const LoadedModel::Impl& impl = model.impl();
  HostValues host;
  try {
    for (const Node* node : impl.graph->nodes()) {
      const CaptureRule rule = CaptureRuleForKind(node->kind().toQualString());
      if (Refused(*node, rule, host)) {
        return FailedPrecondition(impl.path + ": cannot capture " + DescribeNode(*node) + " into a CUDA graph: " +
                                  std::string(CaptureRuleReason(rule)));
      }
    }
  } catch (const std::exception& e) {
    return Internal(impl.path + ": capture check failed: " + TorchMessage(e));
  }
  return OkStatus();
}

}  // namespace nimble::accelerate
