// Saving and loading model.nimble. The meta is read with the archive reader before the module is
// deserialized, so a file for another device or version is refused with its own message rather than
// whatever loading CUDA tensors onto the wrong device would say.
#include "nimble/accelerate/artifact.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/headeronly/version.h>

#include <filesystem>
#include <system_error>

#include "loaded_model_impl.h"
#include "nimble/accelerate/blas_workspace.h"
#include "stream_context.h"
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
  const std::string partial = path + ".partial";
  try {
    torch::jit::ExtraFilesMap extra{{kArtifactMetaFile, EncodeArtifactMeta(meta)}};
    scheduled.impl().module.save(partial, extra);
  } catch (const std::exception& e) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return Internal(path + ": saving the scheduled module failed: " + TorchMessage(e));
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) return Internal(path + ": " + error.message());
  return OkStatus();
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
    artifact.model = LoadedModel(std::move(impl));
  } catch (const std::exception& e) {
    return DataLoss(path + ": loading the scheduled module failed: " + TorchMessage(e));
  }
  return artifact;
}

}  // namespace nimble::accelerate
