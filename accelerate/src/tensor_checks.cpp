#include "tensor_checks.h"

#include <cmath>
#include <optional>

#include "tensor_types.h"

namespace nimble::accelerate {

std::string DtypeName(c10::ScalarType type) {
  if (const std::optional<DType> dtype = FromScalarType(type)) return std::string(DTypeName(*dtype));
  if (type == c10::kDouble) return "float64";
  return c10::toString(type);
}

std::string SizesText(c10::IntArrayRef sizes) {
  std::string text;
  for (int64_t d : sizes) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text.empty() ? "a scalar" : text;
}

std::string TensorText(const at::Tensor& t) {
  return SizesText(t.sizes()) + ":" + DtypeName(t.scalar_type()) + " on " + t.device().str();
}

Status CheckAgainstBuffer(const std::string& which, const at::Tensor& input, const at::Tensor& buffer) {
  if (!input.defined()) return InvalidArgument(which + " is undefined (None)");
  if (input.device() != buffer.device()) {
    return InvalidArgument(which + " is on " + input.device().str() + ", the graph was captured on " +
                           buffer.device().str() + " (move it with .to(\"" + buffer.device().str() + "\"))");
  }
  if (input.scalar_type() != buffer.scalar_type()) {
    return InvalidArgument(which + " is " + DtypeName(input.scalar_type()) + ", the graph was captured for " +
                           DtypeName(buffer.scalar_type()));
  }
  if (input.sizes() != buffer.sizes()) {
    return InvalidArgument(which + " has shape " + SizesText(input.sizes()) + ", the graph was captured for " +
                           SizesText(buffer.sizes()));
  }
  return OkStatus();
}

double RelativeL2Distance(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  TORCH_CHECK(a.size() == b.size(), "nimble: relative distance between ", a.size(), " and ", b.size(), " tensors");
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    TORCH_CHECK(a[i].sizes() == b[i].sizes(), "nimble: relative distance between shapes ", a[i].sizes(), " and ",
                b[i].sizes(), " (tensor ", i, ")");
    diff += std::pow((a[i].to(at::kDouble) - b[i].to(at::kDouble)).norm().item<double>(), 2);
    norm += std::pow(b[i].to(at::kDouble).norm().item<double>(), 2);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace nimble::accelerate
