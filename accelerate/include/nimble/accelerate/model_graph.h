// The TorchScript front end: a model file and its input shapes in, the op graph out (one op per node
// that launches GPU work, data edges through folded plumbing, order edges between side effects).
// Invariants: ops in topological order (edges go from lower to higher ids), no duplicate edges,
// OpGraph::Validate() holds. Calls share no state; a result belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nimble/accelerate/blas_workspace.h"
#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/op_graph.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

// The memory format of the convolutions' weights and activations (conv_layout.h).
enum class MemoryFormat : uint8_t {
  kAuto,          // channels_last where it pays: half-precision convolutions, none of them depthwise
                  // (with some depthwise, ModelGraph::layout_open: nimble-accelerate --memory-format
                  // measure records both)
  kContiguous,    // as the file holds them (NCHW)
  kChannelsLast,  // every 2-D convolution's constant weight, and each 4-D floating input on entry
};
// "auto", "contiguous", "channels_last".
std::string_view MemoryFormatName(MemoryFormat format);
std::optional<MemoryFormat> ParseMemoryFormat(std::string_view name);

struct FrontEndOptions {
  // Fold batch norm and constant add/mul into convolutions when freezing, and turn GELU's tanh
  // approximation written out element by element (GPT-2's activation) into one aten::gelu. Of
  // torch::jit::optimize_for_inference's other passes, the MKLDNN conversion is CPU-only and the linear
  // transpose turns one addmm kernel into two, so neither is run.
  bool optimize = true;
  // With `optimize`, also fuse conv with a following add and relu into one cuDNN call (CUDA weights
  // only). In fp32 with TF32 off the fused calls measured about 2x slower than plain convolutions on
  // Inception-v3 and ResNet-50 (bench/results/accelerate.md), so it is off unless asked for; the
  // profiler and the ahead-of-time stage must agree on it for a recording to weigh the same ops.
  bool cuda_fusions = false;
  // With `optimize` (and without cuda_fusions), each convolution's bias add, residual add and
  // activation (relu, relu6 or hardtanh(0, 6), silu) run as one kernel of Nimble's own instead of up
  // to three of ATen's, with the same rounding (accelerate/src/conv_epilogue.h). Applied after the
  // shape run, where both operands of a residual add are seen to have one shape and dtype; a model
  // whose shape run then fails is loaded again without it. The graph is the same on every device; the CPU runs
  // ATen's kernels.
  bool conv_epilogues = true;
  // TF32 in fp32 convolutions. A traced convolution (aten::_convolution) carries the allow_tf32 flag
  // of the process that traced it as a constant, which overrides the process's setting at run time:
  // every such constant is set to this, so that the file cannot change the precision asked for.
  // Measured: ResNet-50 and Inception-v3 traced with PyTorch's default (TF32) ran their AoT replays
  // about 2x faster than the same models in IEEE fp32 (bench/results/python_api.md).
  bool tf32 = false;
  // Measured on the H100 at batch 1 in float16: nimble-accelerate's ResNet-50 replay 1.37x and
  // Inception-v3's 1.44x faster in channels_last (cuDNN drops a pair of layout transposes around each
  // NCHW convolution); PyTorch's CUDA graphs of MobileNetV2 and EfficientNet-B0 (depthwise) 12 % and
  // 11 % slower (bench/results/zoo.md). With kAuto, a model that fails its shape run in channels_last
  // (a view that needs NCHW strides) is loaded again contiguous.
  MemoryFormat memory_format = MemoryFormat::kAuto;
  // Where the model is loaded and its shape run happens: "cpu", "cuda" or "cuda:N".
  std::string device = "cpu";
  // Run a half-precision model in float32: every float16 or bfloat16 constant (its weights) is widened
  // to float32 and every constant dtype argument naming float16 or bfloat16 names float32; float inputs
  // are then given as float32. The output check's measure of how far a model at its dtype is from itself
  // computed in float32.
  bool widen_to_float32 = false;
};

struct ModelGraph {
  OpGraph graph;
  LoadedModel model;            // the frozen module; model.impl() maps ops back to their nodes
  bool channels_last = false;   // the convolutions run channels_last (FrontEndOptions::memory_format)
  // MemoryFormat::kAuto left the layout contiguous without knowing it is the faster one: half-precision
  // convolutions, some of them depthwise. nimble-accelerate --memory-format measure then records the
  // model in both and keeps the layout whose kernels take less GPU time.
  bool layout_open = false;
  // Elements of the frozen graph's float32 and of its float16 / bfloat16 weights (tensor constants), as
  // the file holds them: which precision the model computes in (the GPU-sharing model depends on it).
  int64_t float32_weights = 0;
  int64_t half_weights = 0;
  int32_t graph_nodes = 0;      // nodes in the frozen graph, ops and folded ones together
  int64_t load_ns = 0;          // reading, freezing and simplifying the module
  int32_t folded_shape_queries = 0;  // x.size() and the like, replaced by their value (static shapes)
  int32_t conv_epilogues = 0;   // convolution tails made one kernel (FrontEndOptions::conv_epilogues)
  int64_t shape_run_ns = 0;     // running it once for shapes (a forward pass on options.device; two
                                // when shape queries were folded)
  int64_t extract_ns = 0;       // classifying nodes and building the edges
  BlasWorkspaces blas;          // cuBLASLt matched to cuBLAS before loading on a GPU (blas_workspace.h)
};

// Loads `path` (torch::jit::load), puts it in eval mode, freezes it (inlining methods and folding
// attributes into constants), runs it once on random inputs of `inputs` (shape and dtype, one per
// forward argument) to learn output shapes, specializes the graph to those shapes (shape queries become
// constants, so the graph is valid for these input shapes only), and extracts the op graph. Errors name
// the file and, where one is at fault, the node: NotFound (no file), DataLoss (not a readable archive),
// InvalidArgument (not TorchScript; wrong input count, rank or size), FailedPrecondition (dynamic
// control flow, no ops that launch GPU work), Unavailable (device).
StatusOr<ModelGraph> LoadModelGraph(const std::string& path,
                                    const std::vector<TensorSpec>& inputs,
                                    const FrontEndOptions& options = {});
// The inputs a model file records: a torch.export program's (.pt2) user inputs, their shapes and
// dtypes from its signature (integer inputs get TensorSpec's default value range). InvalidArgument
// naming the file for TorchScript (which records no shapes), for a program exported with dynamic
// shapes (a symbolic dimension) or with an input of a dtype Nimble does not take; the archive's own
// errors otherwise (export_program.h).
StatusOr<std::vector<TensorSpec>> RecordedInputs(const std::string& path);

// The same with float32 inputs of `input_shapes`.
StatusOr<ModelGraph> LoadModelGraph(const std::string& path, const std::vector<std::vector<int64_t>>& input_shapes,
                                    const FrontEndOptions& options = {});

}  // namespace nimble::accelerate
