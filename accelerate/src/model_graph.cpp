#include "nimble/accelerate/model_graph.h"

#include <chrono>

#include "conv_epilogue.h"
#include "export_program.h"
#include "graph_extractor.h"
#include "model_loader.h"
#include "shape_run.h"
#include "static_shapes.h"
#include "tensor_types.h"
#include "torch_errors.h"

// The front end's three steps; libtorch stays in the files each step lives in.

namespace nimble::accelerate {
namespace {

int64_t NsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

// Which of the front end's own rewrites a failed shape run ran on, so that the model can be loaded again
// without it.
struct ShapeRunFailure {
  bool channels_last = false;
  bool conv_epilogues = false;
};

// The convolution tails made one kernel each; the shape run again when any were.
Status FuseEpilogues(ModelGraph& result, StatusOr<ShapeRun>& run, ShapeRunFailure* failure) {
  try {
    result.conv_epilogues = FuseConvEpilogues(result.model.impl(), *run);
  } catch (const std::exception& e) {
    failure->conv_epilogues = true;  // loaded again without them
    return Internal(result.model.path() + ": fusing the convolutions' epilogues failed: " + TorchMessage(e));
  }
  if (result.conv_epilogues == 0) return OkStatus();
  run = RunForShapes(result.model.impl());
  if (!run.ok()) failure->conv_epilogues = true;
  return run.status();
}

// One load; `*failure` says which rewrites a failed shape run ran on.
StatusOr<ModelGraph> LoadOnce(const std::string& path, const std::vector<TensorSpec>& inputs,
                              const FrontEndOptions& options, ShapeRunFailure* failure) {
  ModelGraph result;
  auto start = std::chrono::steady_clock::now();
  NIMBLE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedModel::Impl> impl, LoadFrozenModel(path, inputs, options));
  result.channels_last = impl->channels_last;
  result.layout_open = impl->layout_open;
  result.float32_weights = impl->float32_weights;
  result.half_weights = impl->half_weights;
  result.model = LoadedModel(std::move(impl));
  result.load_ns = NsSince(start);
  start = std::chrono::steady_clock::now();
  StatusOr<ShapeRun> run = RunForShapes(result.model.impl());
  StatusOr<int32_t> folded = run.ok() ? FoldShapeQueries(result.model.impl(), *run) : StatusOr<int32_t>(run.status());
  if (folded.ok() && *folded > 0) run = RunForShapes(result.model.impl());
  if (!folded.ok() || !run.ok()) {
    failure->channels_last = result.channels_last;
    return folded.ok() ? run.status() : folded.status();
  }
  result.folded_shape_queries = *folded;
  if (options.optimize && options.conv_epilogues && !options.cuda_fusions) {
    NIMBLE_RETURN_IF_ERROR(FuseEpilogues(result, run, failure));
  }
  result.shape_run_ns = NsSince(start);
  start = std::chrono::steady_clock::now();
  NIMBLE_ASSIGN_OR_RETURN(result.graph, ExtractOpGraph(result.model.impl(), *run));
  result.extract_ns = NsSince(start);
  result.graph_nodes = static_cast<int32_t>(run->size());
  return result;
}

}  // namespace

StatusOr<ModelGraph> LoadModelGraph(const std::string& path, const std::vector<TensorSpec>& inputs,
                                    const FrontEndOptions& options) {
  const BlasWorkspaces blas = options.device.starts_with("cuda") ? MatchBlasLtWorkspace() : BlasWorkspaces{};
  ShapeRunFailure failure;
  FrontEndOptions retry = options;
  StatusOr<ModelGraph> loaded = LoadOnce(path, inputs, options, &failure);
  // Each rewrite that a failed load ran on is dropped in turn, at most once each.
  for (int attempt = 0; attempt < 2 && !loaded.ok(); ++attempt) {
    if (failure.conv_epilogues && retry.conv_epilogues) {
      // The rewritten graph failed its shape run, which the rewrite's own checks should prevent.
      retry.conv_epilogues = false;
    } else if (failure.channels_last && retry.memory_format == MemoryFormat::kAuto) {
      // Something in the model needs the NCHW strides it was written for (x.view(n, -1) after a
      // convolution, say): the model as the file holds it.
      retry.memory_format = MemoryFormat::kContiguous;
    } else {
      break;
    }
    failure = {};
    loaded = LoadOnce(path, inputs, retry, &failure);
  }
  if (loaded.ok()) {
    loaded->blas = blas;
    return loaded;
  }
  if (!failure.channels_last) return loaded;
  return Status(loaded.status().code(),
                loaded.status().message() + " (with the convolutions in channels_last; --memory-format contiguous "
                                            "keeps the layout the model was written for)");
}

StatusOr<ModelGraph> LoadModelGraph(const std::string& path, const std::vector<std::vector<int64_t>>& input_shapes,
                                    const FrontEndOptions& options) {
  return LoadModelGraph(path, Float32Specs(input_shapes), options);
}

StatusOr<std::vector<TensorSpec>> RecordedInputs(const std::string& path) {
  if (!LooksLikeExportArchive(path)) {
    return InvalidArgument(path + ": not a torch.export program, and a TorchScript file records no input shapes: "
                           "give each input with --input SHAPE[:DTYPE]");
  }
  NIMBLE_ASSIGN_OR_RETURN(ExportProgramInfo info, ReadExportSignature(path));
  std::vector<TensorSpec> specs;
  for (const ExportInputInfo& input : info.inputs) {
    const std::optional<DType> dtype = FromScalarType(input.dtype);
    if (!dtype) {
      return InvalidArgument(path + ": input '" + input.name + "' is of dtype " + std::string(c10::toString(input.dtype)) +
                             ", which Nimble does not take");
    }
    for (int64_t size : input.shape) {
      if (size < 0) {
        return InvalidArgument(path + ": input '" + input.name +
                               "' has a symbolic dimension (exported with dynamic shapes): give its shape with --input");
      }
    }
    TensorSpec spec;
    spec.shape = input.shape;
    spec.dtype = *dtype;
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) return InvalidArgument(path + ": the program takes no tensor input");
  return specs;
}

}  // namespace nimble::accelerate
