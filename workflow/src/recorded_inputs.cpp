#include "recorded_inputs.h"

#include <filesystem>

#include "nimble/accelerate/model_graph.h"

namespace nimble::workflow {

Status FillRecordedInputs(const std::string& model, std::vector<TensorSpec>& inputs, const ProgressFn& progress) {
  std::error_code error;
  if (!inputs.empty() || !std::filesystem::is_regular_file(model, error)) return OkStatus();
  StatusOr<std::vector<TensorSpec>> recorded = accelerate::RecordedInputs(model);
  if (!recorded.ok()) return InvalidArgument("--input is required: " + recorded.status().message());
  inputs = std::move(*recorded);
  Progress(progress).Step("inputs from the program's signature: " + TensorSpecsText(inputs));
  return OkStatus();
}

}  // namespace nimble::workflow
