// The program's signature decides the forward: input_specs say which graph placeholders are user
// inputs (forward's arguments, in order) and which are parameters, buffers or constants (graph
// constants); output_specs say which graph outputs the user sees, and any other output kind
// (buffer_mutation, user_input_mutation, gradients, tokens) is a program this front end refuses.
#include "export_program.h"

#include <ATen/Context.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/ir/ir.h>

#include <string>
#include <vector>

#include "export_archive.h"
#include "export_arguments.h"
#include "export_graph_builder.h"
#include "export_schema.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using nlohmann::json;
using torch::jit::Graph;
using torch::jit::Module;
using torch::jit::Value;

// The class of every loaded program; each load has its own CompilationUnit, so names never clash.
constexpr const char* kProgramClass = "__torch__.ExportedProgram";

std::string StringField(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

Status ReadSchemaVersion(const json& program, const std::string& path, ExportProgramInfo* info) {
  if (!program.contains("schema_version")) return DataLoss(path + ": the program has no schema_version");
  const json& version = program.at("schema_version");
  info->schema_major = version.at("major").get<int64_t>();
  info->schema_minor = version.value("minor", int64_t{0});
  info->torch_version = StringField(program, "torch_version");
  if (info->schema_major == kExportSchemaMajor) return OkStatus();
  const std::string found = std::to_string(info->schema_major) + "." + std::to_string(info->schema_minor);
  const std::string writer = info->torch_version.empty() ? "" : " (written by torch " + info->torch_version + ")";
  return FailedPrecondition(path + ": torch.export schema version " + found + writer + " is not supported; "
                            "supported: " + std::to_string(kExportSchemaMajor) + ".x (torch 2.11 writes 8.17): "
                            "export the program again with a torch release that writes that schema");
}

// The user outputs' arguments, in order; a program with any other kind of output is refused.
StatusOr<std::vector<const json*>> UserOutputs(const json& output_specs, const std::string& path) {
  std::vector<const json*> outputs;
  for (const json& spec : output_specs) {
    const std::string kind = UnionKind(spec);
    if (kind.empty()) return DataLoss(path + ": malformed output spec (not a one-key object)");
    if (kind == "user_output") {
      outputs.push_back(&spec.at(kind).at("arg"));
      continue;
    }
    const json& body = spec.at(kind);
    if (kind == "buffer_mutation" || kind == "parameter_mutation") {
      const std::string name = StringField(body, kind == "buffer_mutation" ? "buffer_name" : "parameter_name");
      return Unimplemented(path + ": the program updates " + kind.substr(0, kind.find('_')) + " '" + name +
                           "' (output kind " + kind + "); programs that mutate their state are not supported "
                           "(weights are constants of the loaded graph)");
    }
    if (kind == "user_input_mutation") {
      return Unimplemented(path + ": the program writes to its input '" + StringField(body, "user_input_name") +
                           "' (output kind user_input_mutation); input mutations are not supported");
    }
    return Unimplemented(path + ": output kind '" + kind + "' is not supported (only user outputs; gradients, "
                         "losses and effect tokens belong to training or side-effecting programs)");
  }
  if (outputs.empty()) return InvalidArgument(path + ": the program has no user outputs");
  return outputs;
}

ExportInputInfo InputInfo(const std::string& name, const json& tensor_values) {
  ExportInputInfo input;
  input.name = name;
  const json& meta = tensor_values.at(name);
  input.dtype = ExportScalarType(meta.at("dtype").get<int64_t>()).value_or(c10::ScalarType::Undefined);
  for (const json& size : meta.at("sizes")) {
    input.shape.push_back(size.contains("as_int") ? size.at("as_int").get<int64_t>() : -1);
  }
  return input;
}

StatusOr<at::Tensor> FindTensor(const std::string& fqn, const NamedTensors& first, const NamedTensors& second,
                                const std::string& what, const std::string& path) {
  if (const auto found = first.find(fqn); found != first.end()) return found->second;
  if (const auto found = second.find(fqn); found != second.end()) return found->second;
  return DataLoss(path + ": " + what + " has no payload in the archive");
}

StatusOr<c10::IValue> ConstantInput(const json& value) {
  const std::string kind = UnionKind(value);
  if (kind == "as_none") return c10::IValue();
  if (kind == "as_int") return c10::IValue(value.at(kind).get<int64_t>());
  if (kind == "as_float") return c10::IValue(JsonFloat(value.at(kind)));
  if (kind == "as_bool") return c10::IValue(value.at(kind).get<bool>());
  if (kind == "as_string") return c10::IValue(value.at(kind).get<std::string>());
  return DataLoss("constant input of unknown kind '" + kind + "'");
}

// One placeholder of the graph: a forward argument, or a constant of the graph.
Status BindInput(const json& spec, const NamedTensors& weights, const NamedTensors& constants,
                 const std::string& path, Graph& graph, ExportGraphBuilder& builder) {
  const std::string kind = UnionKind(spec);
  if (kind.empty()) return DataLoss(path + ": malformed input spec (not a one-key object)");
  const json& body = spec.at(kind);
  if (kind == "user_input") {
    const json& argument = body.at("arg");
    if (UnionKind(argument) != "as_tensor") {
      return Unimplemented(path + ": a user input of kind '" + UnionKind(argument) +
                           "'; only tensor inputs are supported");
    }
    Value* input = graph.addInput();
    input->setType(c10::TensorType::get());
    return builder.BindUserInput(argument.at("as_tensor").at("name").get<std::string>(), input);
  }
  if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant") {
    const std::string name = body.at("arg").at("name").get<std::string>();
    const char* key = kind == "parameter" ? "parameter_name"
                      : kind == "buffer"  ? "buffer_name"
                                          : "tensor_constant_name";
    const std::string fqn = body.at(key).get<std::string>();
    const std::string what = (kind == "tensor_constant" ? "tensor constant" : kind) + " '" + fqn + "'";
    // Persistent state lives under data/weights, the rest under data/constants; look in both.
    const bool in_weights = kind == "parameter" || (kind == "buffer" && body.value("persistent", true));
    StatusOr<at::Tensor> tensor = in_weights ? FindTensor(fqn, weights, constants, what, path)
                                             : FindTensor(fqn, constants, weights, what, path);
    if (!tensor.ok()) return tensor.status();
    return builder.BindTensorConstant(name, *tensor, what);
  }
  if (kind == "constant_input") {
    StatusOr<c10::IValue> value = ConstantInput(body.at("value"));
    if (!value.ok()) return value.status().WithContext(path);
    return builder.BindConstant(body.at("name").get<std::string>(), *value);
  }
  if (kind == "custom_obj") return Unimplemented(path + ": the program uses a TorchBind object; not supported");
  if (kind == "token") {
    return Unimplemented(path + ": the program threads effect tokens (side-effecting operators); not supported");
  }
  return Unimplemented(path + ": input kind '" + kind + "' is not supported");
}

// The forward's arguments, in order (other kinds of user input are refused when bound).
void ReadUserInputs(const json& input_specs, const json& tensor_values, ExportProgramInfo* info) {
  for (const json& spec : input_specs) {
    if (UnionKind(spec) != "user_input") continue;
    const json& argument = spec.at("user_input").at("arg");
    if (UnionKind(argument) != "as_tensor") continue;
    info->inputs.push_back(InputInfo(argument.at("as_tensor").at("name").get<std::string>(), tensor_values));
  }
}

StatusOr<Module> BuildModule(const ExportArchive& archive, c10::Device device, ExportProgramInfo* info) {
  const std::string& path = archive.path;
  NIMBLE_RETURN_IF_ERROR(ReadSchemaVersion(archive.program, path, info));
  const json& graph_module = archive.program.at("graph_module");
  const json& serialized_graph = graph_module.at("graph");
  const json& tensor_values = serialized_graph.at("tensor_values");
  const json& signature = graph_module.at("signature");
  ReadUserInputs(signature.at("input_specs"), tensor_values, info);
  NIMBLE_ASSIGN_OR_RETURN(std::vector<const json*> outputs, UserOutputs(signature.at("output_specs"), path));
  info->num_outputs = outputs.size();
  NIMBLE_ASSIGN_OR_RETURN(NamedTensors weights, ReadExportWeights(archive, device));
  NIMBLE_ASSIGN_OR_RETURN(NamedTensors constants, ReadExportConstants(archive, device));

  Module module(c10::QualifiedName(kProgramClass), std::make_shared<torch::jit::CompilationUnit>());
  module.register_attribute("training", c10::BoolType::get(), false);
  auto graph = std::make_shared<Graph>();
  graph->addInput("self")->setType(module.type());
  ExportGraphBuilder builder(graph, path, device, serialized_graph);
  for (const json& spec : signature.at("input_specs")) {
    NIMBLE_RETURN_IF_ERROR(BindInput(spec, weights, constants, path, *graph, builder));
  }
  for (const json& node : serialized_graph.at("nodes")) NIMBLE_RETURN_IF_ERROR(builder.AddNode(node));
  std::vector<Value*> results;
  for (const json* output : outputs) {
    NIMBLE_ASSIGN_OR_RETURN(Value * result, builder.OutputValue(*output));
    results.push_back(result);
  }
  graph->registerOutput(results.size() == 1 ? results.front()
                                            : graph->insertNode(graph->createTuple(results))->output());
  try {
    graph->lint();
  } catch (const std::exception& e) {
    return Internal(path + ": the rebuilt graph is inconsistent: " + TorchMessage(e));
  }
  auto* forward = module.type()->compilation_unit()->create_function(
      c10::QualifiedName(*module.type()->name(), "forward"), graph);
  module.type()->addMethod(forward);
  return module;
}

}  // namespace

bool LooksLikeExportArchive(const std::string& path) { return IsExportArchive(path); }

StatusOr<ExportProgramInfo> ReadExportSignature(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(ExportArchive archive, OpenExportArchive(path));
  ExportProgramInfo info;
  try {
    NIMBLE_RETURN_IF_ERROR(ReadSchemaVersion(archive.program, path, &info));
    const json& graph_module = archive.program.at("graph_module");
    const json& signature = graph_module.at("signature");
    ReadUserInputs(signature.at("input_specs"), graph_module.at("graph").at("tensor_values"), &info);
    NIMBLE_ASSIGN_OR_RETURN(std::vector<const json*> outputs, UserOutputs(signature.at("output_specs"), path));
    info.num_outputs = outputs.size();
  } catch (const nlohmann::json::exception& e) {
    return DataLoss(path + ": models/" + archive.model_name + ".json is not a valid program: " + e.what());
  }
  return info;
}

StatusOr<Module> LoadExportProgram(const std::string& path, c10::Device device, ExportProgramInfo* info) {
  ExportProgramInfo local;
  ExportProgramInfo* out = info != nullptr ? info : &local;
  *out = ExportProgramInfo();
  if (device.is_cuda() && !at::hasCUDA()) {
    return Unavailable(path + ": device '" + device.str() + "' requested but no CUDA device is available");
  }
  NIMBLE_ASSIGN_OR_RETURN(ExportArchive archive, OpenExportArchive(path));
  try {
    return BuildModule(archive, device, out);
  } catch (const nlohmann::json::exception& e) {
    return DataLoss(path + ": models/" + archive.model_name + ".json is not a valid program: " + e.what());
  } catch (const std::exception& e) {
    return Internal(path + ": building the module failed: " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate
