// Specialization to the input shapes. A traced model that pads "same" (timm's NASNet, EfficientNet
// ports) computes its padding from x.size() at run time: aten::size, then arithmetic on 0-dim tensors,
// then aten::Int back to a number. On the GPU that arithmetic can read a device tensor, a host sync that
// no CUDA graph can hold. A captured model runs at one set of input shapes only (the artifact records
// them and the runner refuses others), so every shape query is a constant there: this step replaces
// each with the value the shape run observed and lets constant propagation fold what depended on it.
#pragma once

#include <cstdint>

#include "loaded_model_impl.h"
#include "nimble/core/status.h"
#include "shape_run.h"

namespace nimble::accelerate {

// Replaces the shape queries recorded in `run` by constants, folds what became constant and drops dead
// nodes. Returns how many queries were replaced; when non-zero, `run` no longer describes the graph
// and must be made again.
StatusOr<int32_t> FoldShapeQueries(LoadedModel::Impl& model, const ShapeRun& run);

}  // namespace nimble::accelerate
