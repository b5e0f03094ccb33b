#include "nimble/accelerate/loaded_model.h"

#include <sstream>

#include "loaded_model_impl.h"

namespace nimble {

LoadedModel::LoadedModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

// Accessors on an empty handle are programmer errors: fail fast.
LoadedModel::Impl& LoadedModel::impl() const {
  assert(impl_ != nullptr && "LoadedModel is empty");
  return *impl_;
}

const std::string& LoadedModel::path() const { return impl().path; }
const std::string& LoadedModel::device() const { return impl().device; }
const std::vector<std::vector<int64_t>>& LoadedModel::input_shapes() const { return impl().input_shapes; }

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

}  // namespace nimble
