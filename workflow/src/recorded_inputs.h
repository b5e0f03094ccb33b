// Inputs a command was not given: a torch.export program records its own (its signature's shapes and
// dtypes), so --input may be left out for one. Private to the workflow (libtorch); no state.
#pragma once

#include <string>
#include <vector>

#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"
#include "nimble/workflow/progress.h"

namespace nimble::workflow {

// With `inputs` empty and `model` an existing file: fills them from the file's signature and says so in
// a progress step; InvalidArgument "--input is required: ..." naming the file and why (TorchScript,
// dynamic shapes) when it records none. Otherwise leaves everything as it is.
Status FillRecordedInputs(const std::string& model, std::vector<TensorSpec>& inputs, const ProgressFn& progress);

}  // namespace nimble::workflow
