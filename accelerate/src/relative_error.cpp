// The output comparison of the correctness check: a norm-wise relative error (largest absolute
// difference over largest reference magnitude), robust to the many near-zero outputs of a network
// where an element-wise relative error would explode.
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "nimble/accelerate/model_timing.h"

namespace nimble::accelerate {

StatusOr<double> MaxRelativeError(const std::vector<HostTensor>& actual, const std::vector<HostTensor>& reference) {
  if (actual.size() != reference.size()) {
    return InvalidArgument("output count differs: " + std::to_string(actual.size()) + " vs " +
                           std::to_string(reference.size()));
  }
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i].shape != reference[i].shape || actual[i].data.size() != reference[i].data.size()) {
      return InvalidArgument("output " + std::to_string(i) + " has shape " + ShapeText(actual[i].shape) +
                             ", the reference " + ShapeText(reference[i].shape));
    }
    for (size_t k = 0; k < actual[i].data.size(); ++k) {
      const double a = actual[i].data[k], b = reference[i].data[k];
      if (std::isnan(a) != std::isnan(b)) return std::numeric_limits<double>::infinity();
      max_diff = std::max(max_diff, std::abs(a - b));
      max_ref = std::max(max_ref, std::abs(b));
    }
  }
  if (max_ref == 0) return max_diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return max_diff / max_ref;
}

std::vector<HostTensor> WidenedToFloat32(std::vector<HostTensor> tensors) {
  for (HostTensor& tensor : tensors) {
    if (tensor.dtype == DType::kFloat16) {
      for (float& v : tensor.data) v = static_cast<float>(c10::Half(v));
    } else if (tensor.dtype == DType::kBFloat16) {
      for (float& v : tensor.data) v = static_cast<float>(c10::BFloat16(v));
    } else {
      continue;
    }
    tensor.dtype = DType::kFloat32;
  }
  return tensors;
}

}  // namespace nimble::accelerate
