// nimble._C.Runner: a model.nimble captured in this process and replayed on device tensors
// (accelerate::TensorRunner). Loading releases the GIL; a call keeps it (it only queues work). And the
// memset-node rewrite of a graph torch.cuda.CUDAGraph(keep_graph=True) captured (the training capture's).
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/memset_rewrite.h"
#include "nimble/accelerate/smem_carveout.h"
#include "nimble/accelerate/tensor_runner.h"
#include "status_errors.h"

namespace nimble::python {
namespace py = pybind11;

namespace {

using accelerate::TensorRunner;

std::unique_ptr<TensorRunner> LoadRunner(const std::string& path, const std::string& device, int32_t warmup_runs) {
  accelerate::RunnerOptions options;
  options.device = device;
  options.warmup_runs = warmup_runs;
  StatusOr<std::unique_ptr<TensorRunner>> runner = [&] {
    py::gil_scoped_release released;
    return TensorRunner::Load(path, options);
  }();
  return Unwrap(std::move(runner));
}

py::dict StatsDict(const accelerate::CaptureStats& s) {
  py::dict d;
  d["streams"] = s.num_streams;
  d["events"] = s.num_events;
  d["warmup_ns"] = s.warmup_ns;
  d["capture_ns"] = s.capture_ns;
  d["peak_allocated_bytes"] = s.peak_allocated_bytes;
  d["peak_memory_bytes"] = s.peak_memory_bytes;
  d["graph_pool_bytes"] = s.graph_pool_bytes;
  d["memset_nodes_replaced"] = s.memset_nodes_replaced;
  d["memset_nodes_kept"] = s.memset_nodes_kept;
  return d;
}

std::vector<std::string> SpecTexts(const std::vector<TensorSpec>& specs) {
  std::vector<std::string> texts;
  for (const TensorSpec& spec : specs) texts.push_back(TensorSpecText(spec));
  return texts;
}

// `graph`: CUDAGraph.raw_cuda_graph(), captured and not yet instantiated.
py::dict RewriteGraphMemsets(std::uintptr_t graph, bool keep) {
  const accelerate::MemsetRewrite rewrite = Unwrap(accelerate::RewriteMemsetNodes(graph, keep));
  py::dict d;
  d["memset_nodes_replaced"] = rewrite.replaced;
  d["memset_nodes_kept"] = rewrite.kept;
  return d;
}

}  // namespace

void BindRunner(py::module_& m) {
  m.def(
      "set_kernel_carveout",
      [](std::uintptr_t graph, int32_t percent) { return Unwrap(accelerate::SetGraphKernelCarveout(graph, percent)); },
      py::arg("graph"), py::arg("percent"),
      "Asks `percent` (0-100) of the shared-memory carveout of a captured cudaGraph_t's kernel nodes that use "
      "no shared memory (CUDAGraph.raw_cuda_graph(), before instantiate()); -1 only counts them. Returns how many.");
  m.def("rewrite_memset_nodes", &RewriteGraphMemsets, py::arg("graph"), py::arg("keep") = false,
        "Replaces the small memset nodes of a captured cudaGraph_t (CUDAGraph.raw_cuda_graph(), before "
        "instantiate()) with kernels writing the same bytes; keep=True only counts them.");
  py::class_<TensorRunner>(m, "Runner")
      .def(py::init(&LoadRunner), py::arg("path"), py::arg("device") = "cuda", py::arg("warmup_runs") = 3)
      .def(
          "run",
          [](TensorRunner& runner, const std::vector<at::Tensor>& inputs) { return Unwrap(runner.Run(inputs)); },
          py::arg("inputs"), "One replay on the current stream; the outputs are the graph's buffers.")
      .def(
          "replay", [](TensorRunner& runner) { Check(runner.ReplayAsTimed()); },
          "The work nimble-run times per replay: the capture's inputs copied in, one replay; nothing returned.")
      .def(
          "latencies",
          // Keeps the GIL: a runner is used by one thread at a time, and another Python thread calling
          // it meanwhile would race with these replays on the buffers.
          [](TensorRunner& runner, int32_t iters) { return Unwrap(runner.Latencies(iters)); },
          py::arg("iters"), "Replay latencies in ns, timed as nimble-run times them.")
      .def(
          "bucket_latencies",
          [](TensorRunner& runner, int32_t bucket, int32_t iters) { return Unwrap(runner.BucketLatencies(bucket, iters)); },
          py::arg("bucket"), py::arg("iters"), "Replay latencies in ns of one bucket, timed as nimble-run times them.")
      .def_property_readonly("input_shapes", [](const TensorRunner& r) { return SpecShapes(r.inputs()); })
      .def_property_readonly("input_specs", [](const TensorRunner& r) { return SpecTexts(r.inputs()); })
      .def_property_readonly("bucket_specs",
                             [](const TensorRunner& r) {
                               std::vector<std::vector<std::string>> buckets;
                               for (int32_t b = 0; b < r.bucket_count(); ++b) buckets.push_back(SpecTexts(r.bucket_inputs(b)));
                               return buckets;
                             })
      .def_property_readonly("bucket_shapes",
                             [](const TensorRunner& r) {
                               std::vector<std::vector<std::vector<int64_t>>> buckets;
                               for (int32_t b = 0; b < r.bucket_count(); ++b) buckets.push_back(SpecShapes(r.bucket_inputs(b)));
                               return buckets;
                             })
      .def_property_readonly("meta_json", [](const TensorRunner& r) { return accelerate::EncodeArtifactMeta(r.meta()); })
      .def_property_readonly("capture_stats", [](const TensorRunner& r) { return StatsDict(r.capture_stats()); })
      .def(
          "bucket_capture_stats", [](const TensorRunner& r, int32_t bucket) {
            if (bucket < 0 || bucket >= r.bucket_count()) ThrowStatus(InvalidArgument("no bucket " + std::to_string(bucket)));
            return StatsDict(r.bucket_capture_stats(bucket));
          },
          py::arg("bucket"));
}

}  // namespace nimble::python
