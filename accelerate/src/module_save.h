// Saving a TorchScript module so that `path` is either the whole new file or left as it was: written to
// `path`.partial, renamed over `path`, the partial file removed on any failure. Private to accelerate/src.
#pragma once

#include <torch/csrc/jit/api/module.h>

#include <string>

#include "nimble/core/status.h"

namespace nimble::accelerate {

// Internal naming `path` and `what` ("saving the scheduled module failed") when the save or the rename fails.
Status SaveModuleWhole(const torch::jit::Module& module, const std::string& path, const std::string& what,
                       const torch::jit::ExtraFilesMap& extra_files = {});

}  // namespace nimble::accelerate
