#include "node_names.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>

namespace nimble::accelerate {
namespace {

constexpr size_t kMaxSourceChars = 80;

std::string Trim(std::string text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

std::string ModulePath(const torch::jit::Node& node) {
  const auto callstack = node.callstack();
  if (!callstack) return "";
  std::string path;
  // Each inlined call records the module instance it was made on; the outermost is the model itself
  // (no useful name), the rest are attribute names: layer1, 0, conv1.
  for (const auto& entry : (*callstack)->vec()) {
    const auto& instance = std::get<2>(entry);
    if (!instance) continue;
    const std::string name = instance->instance_name();
    if (name.empty() || name == "self" || name == "top") continue;
    if (!path.empty()) path += '.';
    path += name;
  }
  return path;
}

std::string SourceLine(const torch::jit::Node& node) {
  const torch::jit::SourceRange range = node.sourceRange();
  const std::shared_ptr<torch::jit::Source>& source = range.source();
  if (!source || source->num_lines() == 0) return "";
  // The range covers only the call (`torch.conv2d`); the whole line it starts on reads better.
  std::string text = Trim(source->get_line(source->lineno_for_offset(range.start())).str());
  if (text.size() > kMaxSourceChars) text = text.substr(0, kMaxSourceChars - 3) + "...";
  return text;
}

std::string DescribeNode(const torch::jit::Node& node) {
  std::string text = node.kind().toQualString();
  const std::string module = ModulePath(node);
  const std::string source = SourceLine(node);
  if (module.empty() && source.empty()) return text;
  text += " (";
  if (!module.empty()) text += module;
  if (!module.empty() && !source.empty()) text += ": ";
  if (!source.empty()) text += "`" + source + "`";
  return text + ")";
}

}  // namespace nimble::accelerate
