// Loading a TorchScript file or a torch.export program (.pt2, export_program.h) into a frozen,
// inlined forward graph with no control flow left.
// Every libtorch exception is caught here and returned as a Status that names the file (and the
// node at fault). One call owns the module it makes; different files may load on different threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nimble/accelerate/loaded_model.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// A .pt2 (told by content, not extension) is rebuilt by LoadExportProgram and gets freezing's numeric
// optimizations when options.optimize; anything else is torch::jit::load onto options.device, eval(),
// torch::jit::freeze (optimizing numerics when options.optimize). Then constant loops unrolled and constant branches folded, then refused if any
// control flow is left. Keeps the inputs for the shape run; op_nodes are still empty.
StatusOr<std::shared_ptr<LoadedModel::Impl>> LoadFrozenModel(const std::string& path,
                                                             const std::vector<TensorSpec>& inputs,
                                                             const FrontEndOptions& options);

}  // namespace nimble::accelerate
