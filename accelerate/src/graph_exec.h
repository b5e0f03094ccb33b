// Helpers shared by the AoT executor and the timing code: host <-> device tensors, flattening a
// forward's result into its tensors, one interpreter run of a graph, and a one-line message from an
// interpreter error that keeps the failing source line. Private to accelerate/src; no shared state.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <string>
#include <string_view>
#include <vector>

#include "nimble/accelerate/host_tensor.h"
#include "tensor_types.h"
#include "torch_errors.h"

namespace nimble::accelerate {

inline at::Tensor ToDevice(const HostTensor& host, const c10::Device& device) {
  auto cpu = at::from_blob(const_cast<float*>(host.data.data()), host.shape, at::TensorOptions().dtype(at::kFloat));
  return cpu.to(device, ToScalarType(host.dtype), /*non_blocking=*/false, /*copy=*/true);
}

inline HostTensor ToHost(const at::Tensor& tensor) {
  at::Tensor cpu = tensor.detach().to(at::kCPU, at::kFloat).contiguous();
  HostTensor host;
  host.dtype = FromScalarType(tensor.scalar_type()).value_or(DType::kFloat32);
  host.shape.assign(cpu.sizes().begin(), cpu.sizes().end());
  host.data.assign(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
  return host;
}

inline void FlattenTensors(const c10::IValue& value, std::vector<at::Tensor>* out) {
  if (value.isTensor()) {
    out->push_back(value.toTensor());
  } else if (value.isTuple()) {
    for (const auto& element : value.toTupleRef().elements()) FlattenTensors(element, out);
  } else if (value.isList()) {
    for (const auto& element : value.toListRef()) FlattenTensors(element, out);
  }
}

// The graph's first input is the module itself (frozen graphs no longer read it).
inline c10::IValue RunCode(const torch::jit::Code& code, const torch::jit::Module& module,
                           const std::vector<at::Tensor>& inputs) {
  torch::jit::Stack stack;
  stack.emplace_back(module._ivalue());
  for (const at::Tensor& input : inputs) stack.emplace_back(input);
  torch::jit::InterpreterState(code).run(stack);
  return stack.back();
}

// "CUDA error: operation not permitted when stream is capturing (at `torch.nonzero(x)`)": the
// interpreter's traceback marks the failing source line with "<--- HERE".
inline std::string InterpreterMessage(const std::exception& e) {
  std::string text = e.what();
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) text = c10_error->what_without_backtrace();
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t~") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  // c10's CUDA errors end with hints that are the same for every error; the reason is the line above.
  constexpr std::string_view kCudaHints[] = {"Search for `cuda", "CUDA kernel errors might be asynchronously",
                                             "For debugging consider passing CUDA_LAUNCH_BLOCKING",
                                             "Compile with `TORCH_USE_CUDA_DSA`"};
  auto is_hint = [&](const std::string& line) {
    for (std::string_view hint : kCudaHints) {
      if (line.starts_with(hint)) return true;
    }
    return false;
  };
  while (lines.size() > 1 && is_hint(lines.back())) lines.pop_back();
  if (lines.empty()) return "unknown error";
  std::string where;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("<--- HERE") != std::string::npos && i > 0) where = lines[i - 1];
  }
  const size_t first = where.find_first_not_of(' ');
  where = first == std::string::npos ? "" : where.substr(first);
  std::string message = lines.back();
  return where.empty() ? message : message + " (at `" + where + "`)";
}

}  // namespace nimble::accelerate
