// Saving and loading model.nimble. The meta is read with the archive reader before the module is
// deserialized, so a file for another device or version is refused with its own message rather than
// whatever loading CUDA tensors onto the wrong device would say.
#include "nimble/accelerate/artifact.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <caffe2/serialize/inline_container.h>
#include <ATen/ATen.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/headeronly/version.h>

#include <filesystem>
#include <system_error>

#include "loaded_model_impl.h"
#include "nimble/accelerate/blas_workspace.h"
#include "stream_context.h"
#include "module_save.h"
#include "torch_errors.h"

#ifndef NIMBLE_VERSION_STRING
#define NIMBLE_VERSION_STRING "unknown"
#endif

namespace nimble::accelerate {
namespace {

StatusOr<std::string> ReadMeta(const std::string& path) {
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    const std::string record = std::string("extra/") + kArtifactMetaFile;
    if (!reader.hasRecord(record)) {
      return DataLoss(path + ": no " + std::string(kArtifactMetaFile) + ": not a model.nimble (a plain TorchScript "
                      "file? run nimble-accelerate on it first)");
    }
    auto [data, size] = reader.getRecord(record);
    return std::string(static_cast<const char*>(data.get()), size);
  } catch (const std::exception& e) {
    return DataLoss(path + ": not a readable model.nimble: " + TorchMessage(e));
  }
}

// Replaces each tensor constant of `graph` that equals one in `seen` (same dtype, device, shape,
// strides and values) by that tensor; the others are added to `seen`. Returns how many were replaced.
int32_t ShareConstants(torch::jit::Graph& graph, std::vector<at::Tensor>& seen) {
  int32_t shared = 0;
  for (torch::jit::Node* node : graph.nodes()) {
    if (node->kind() != c10::prim::Constant || !node->hasAttribute(c10::attr::value) ||
        node->kindOf(c10::attr::value) != torch::jit::AttributeKind::t) {
      continue;
    }
    const at::Tensor tensor = node->t(c10::attr::value);
    bool replaced = false;
    for (const at::Tensor& earlier : seen) {
      if (earlier.is_same(tensor)) {
        replaced = true;
        break;
      }
      if (earlier.scalar_type() == tensor.scalar_type() && earlier.device() == tensor.device() &&
          earlier.sizes() == tensor.sizes() && earlier.strides() == tensor.strides() && at::equal(earlier, tensor)) {
        node->t_(c10::attr::value, earlier);
        ++shared;
        replaced = true;
        break;
      }
    }
    if (!replaced) seen.push_back(tensor);
  }
  return shared;
}

// One module of a fresh class with a method per bucket, named as the meta names them.
torch::jit::Module CombineBuckets(const std::vector<LoadedModel>& scheduled, const std::vector<ArtifactBucket>& buckets,
                                  int32_t* shared) {
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module module(c10::QualifiedName("__torch__.nimble.BucketedModel"), unit, /*shouldMangle=*/true);
  std::vector<at::Tensor> seen;
  for (size_t i = 0; i < scheduled.size(); ++i) {
    std::shared_ptr<torch::jit::Graph> graph = scheduled[i].impl().graph->copy();
    graph->inputs()[0]->setType(module.type());
    const int32_t replaced = ShareConstants(*graph, seen);
    if (i > 0) *shared += replaced;  // the first bucket's own duplicates are shared too, but not counted
    torch::jit::Function* method =
        unit->create_function(c10::QualifiedName(*module.type()->name(), buckets[i].method), graph);
    module.type()->addMethod(method);
  }
  return module;
}

Status SaveModule(const torch::jit::Module& module, const ArtifactMeta& meta, const std::string& path) {
  return SaveModuleWhole(module, path, "saving the scheduled module failed",
                         {{kArtifactMetaFile, EncodeArtifactMeta(meta)}});
}

}  // namespace

StatusOr<ArtifactHost> DescribeHost(const std::string& device) {
  ArtifactHost host;
  host.nimble_version = NIMBLE_VERSION_STRING;
  host.torch_version = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                       std::to_string(TORCH_VERSION_PATCH);
  try {
    const c10::Device parsed(device);
    if (!parsed.is_cuda()) {
      host.device_name = parsed.str();
      return host;
    }
    if (c10::cuda::device_count() == 0) return Unavailable("no CUDA device: '" + device + "' does not exist");
    const auto index = parsed.has_index() ? parsed.index() : c10::cuda::current_device();
    if (index >= c10::cuda::device_count()) return Unavailable("device '" + device + "' does not exist");
    const cudaDeviceProp* properties = at::cuda::getDeviceProperties(index);
    host.device_name = properties->name;
    host.compute_capability = "sm_" + std::to_string(properties->major) + std::to_string(properties->minor);
  } catch (const std::exception& e) {
    return InvalidArgument("bad device '" + device + "': " + TorchMessage(e));
  }
  return host;
}

Status SaveArtifact(const LoadedModel& scheduled, const ArtifactMeta& meta, const std::string& path) {
  if (scheduled.empty()) return InvalidArgument("save: no model");
  return SaveModule(scheduled.impl().module, meta, path);
}

StatusOr<SavedArtifact> SaveArtifact(const std::vector<LoadedModel>& scheduled, const ArtifactMeta& meta,
                                     const std::string& path) {
  const std::vector<ArtifactBucket> buckets = ArtifactBuckets(meta);
  if (scheduled.size() != buckets.size()) {
    return InvalidArgument(path + ": " + std::to_string(scheduled.size()) + " scheduled models for " +
                           std::to_string(buckets.size()) + " buckets");
  }
  for (size_t i = 0; i < scheduled.size(); ++i) {
    if (scheduled[i].empty()) return InvalidArgument(path + ": bucket " + std::to_string(i) + " has no model");
    for (size_t j = 0; j < i; ++j) {
      if (buckets[j].method == buckets[i].method) {
        return InvalidArgument(path + ": two buckets name the method '" + buckets[i].method + "'");
      }
    }
  }
  if (buckets.front().method != "forward") return InvalidArgument(path + ": the first bucket must be \"forward\"");
  SavedArtifact saved;
  try {
    const torch::jit::Module module = CombineBuckets(scheduled, buckets, &saved.shared_constants);
    NIMBLE_RETURN_IF_ERROR(SaveModule(module, meta, path));
  } catch (const std::exception& e) {
    return Internal(path + ": combining the buckets failed: " + TorchMessage(e));
  }
  std::error_code error;
  saved.file_bytes = static_cast<int64_t>(std::filesystem::file_size(path, error));
  return saved;
}

StatusOr<LoadedArtifact> LoadArtifact(const std::string& path, const std::string& device, bool check_host) {
  RegisterNimbleOps();
  if (device.starts_with("cuda")) MatchBlasLtWorkspace();  // before the capture's first matmul
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return NotFound(path + ": no such file");
  NIMBLE_ASSIGN_OR_RETURN(std::string text, ReadMeta(path));
  LoadedArtifact artifact;
  NIMBLE_ASSIGN_OR_RETURN(artifact.meta, DecodeArtifactMeta(text, path));
  if (check_host) {
    NIMBLE_ASSIGN_OR_RETURN(ArtifactHost host, DescribeHost(device));
    NIMBLE_RETURN_IF_ERROR(CheckArtifactCompatible(artifact.meta, host, path));
  }
  try {
    auto impl = std::make_shared<LoadedModel::Impl>();
    impl->path = path;
    impl->device = device;
    impl->module = torch::jit::load(path, c10::Device(device));
    impl->module.eval();
    impl->graph = torch::jit::toGraphFunction(impl->module.get_method("forward").function()).graph();
    impl->inputs = artifact.meta.inputs;
    for (const ArtifactBucket& bucket : ArtifactBuckets(artifact.meta)) {
      auto method = impl->module.find_method(bucket.method);
      if (!method) return DataLoss(path + ": the module has no method '" + bucket.method + "' for a bucket of its meta");
      auto view = std::make_shared<LoadedModel::Impl>(*impl);
      view->graph = torch::jit::toGraphFunction(method->function()).graph();
      view->inputs = bucket.inputs;
      artifact.buckets.emplace_back(std::move(view));
    }
    artifact.model = artifact.buckets.front();
  } catch (const std::exception& e) {
    return DataLoss(path + ": loading the scheduled module failed: " + TorchMessage(e));
  }
  return artifact;
}

}  // namespace nimble::accelerate
