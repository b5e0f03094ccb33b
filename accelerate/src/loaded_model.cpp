#include "nimble/accelerate/loaded_model.h"

#include <cstdio>
#include <sstream>

#include "loaded_model_impl.h"
#include "torch_errors.h"

namespace nimble::accelerate {

LoadedModel::LoadedModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

// Accessors on an empty handle are programmer errors: fail fast.
LoadedModel::Impl& LoadedModel::impl() const {
  assert(impl_ != nullptr && "LoadedModel is empty");
  return *impl_;
}

const std::string& LoadedModel::path() const { return impl().path; }
const std::string& LoadedModel::device() const { return impl().device; }
const std::vector<TensorSpec>& LoadedModel::inputs() const { return impl().inputs; }

Status LoadedModel::Save(const std::string& path) const {
  const std::string partial = path + ".partial";
  try {
    impl().module.save(partial);
  } catch (const std::exception& e) {
    std::remove(partial.c_str());
    return Internal(path + ": cannot write the frozen module: " + TorchMessage(e));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    return PermissionDenied(path + ": cannot write the frozen module (rename failed)");
  }
  return OkStatus();
}

std::string LoadedModel::GraphText() const { return impl().graph->toString(/*print_source_locations=*/false); }

StatusOr<std::string> LoadedModel::NodeText(OpId op) const {
  const auto& nodes = impl().op_nodes;
  if (!op.valid() || static_cast<size_t>(op.value()) >= nodes.size()) {
    return OutOfRange(impl().path + ": no op " + std::to_string(op.value()) + " (the graph has " +
                      std::to_string(nodes.size()) + ")");
  }
  std::ostringstream text;
  text << *nodes[static_cast<size_t>(op.value())];
  std::string line = text.str();
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace nimble::accelerate
