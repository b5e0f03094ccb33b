// The C++ training step (nimble::accelerate::TrainingStep) on a TorchScript module saved in training
// mode: its parity check against eager steps of the same module and optimizer (CHECK steps on the
// example batch from the same weights; a difference above the tolerance is reported, as the library
// does by default) and its timing of eager and captured steps (STEPS each), as one JSON line.
// bench/training_bench.py --cpp scripts the paper's CNNs and runs this on each.
//   nimble_training_cpp_bench MODEL.pt BATCH CHANNELS HEIGHT WIDTH CLASSES [STEPS=100] [CHECK=100] [--tf32]
//                             [--deterministic] [--single | --multi] [--keep-memset-nodes]
//                             [--smem-carveout PERCENT|keep]
// The step keeps its single- or multi-stream capture as TrainingStreams::kAuto chooses (the line says
// which, with both measured), or the one asked for. --keep-memset-nodes leaves the captures' memset
// nodes as they are (TrainingOptions::keep_memset_nodes); the line counts them either way.
// --smem-carveout asks a carveout of every capture's kernel nodes without shared memory instead of the
// multi-stream one measured both ways (TrainingOptions::smem_carveout); the line says which was kept.
// SGD lr 0.002, momentum 0.9 (the Python bench's settings), cross-entropy, float32 inputs, TF32 off (IEEE
// float32 in convolutions and matmuls, as the Python bench) unless --tf32. --deterministic: PyTorch's
// deterministic algorithms (warn only), cuDNN's deterministic mode and heuristic picks, on both sides of
// the check (set CUBLAS_WORKSPACE_CONFIG=:4096:8 too), where eager training repeats itself exactly.
#include <ATen/ATen.h>
#include <ATen/Context.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "nimble/accelerate/training_step.h"

namespace {

// The flags after CHECK; false (said on stderr) for a --smem-carveout without a valid value.
bool ParseFlags(int argc, char** argv, nimble::accelerate::TrainingOptions* options, bool* tf32, bool* deterministic) {
  for (int i = 9; i < argc; ++i) {
    const std::string flag = argv[i];
    *tf32 |= flag == "--tf32";
    *deterministic |= flag == "--deterministic";
    if (flag == "--single") options->streams = nimble::accelerate::TrainingStreams::kSingle;
    if (flag == "--multi") options->streams = nimble::accelerate::TrainingStreams::kMulti;
    options->keep_memset_nodes |= flag == "--keep-memset-nodes";
    if (flag != "--smem-carveout") continue;
    const std::string value = i + 1 < argc ? argv[++i] : "";
    char* end = nullptr;
    const long percent = std::strtol(value.c_str(), &end, 10);
    if (value != "keep" && (value.empty() || *end != '\0' || percent < 0 || percent > 100)) {
      std::fprintf(stderr, "--smem-carveout '%s': a percentage from 0 to 100, or keep\n", value.c_str());
      return false;
    }
    options->smem_carveout = value == "keep" ? nimble::accelerate::kKeepCarveout : static_cast<int32_t>(percent);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr,
                 "usage: %s MODEL.pt BATCH CHANNELS HEIGHT WIDTH CLASSES [STEPS=100] [CHECK=100] [--tf32] "
                 "[--deterministic] [--single | --multi] [--keep-memset-nodes] [--smem-carveout PERCENT|keep]\n",
                 argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int64_t batch = std::atoll(argv[2]), channels = std::atoll(argv[3]), height = std::atoll(argv[4]),
                width = std::atoll(argv[5]), classes = std::atoll(argv[6]);
  nimble::accelerate::TrainingOptions options;
  options.sgd.lr = 0.002;
  options.sgd.momentum = 0.9;
  options.timing_steps = argc > 7 ? std::atoi(argv[7]) : 100;
  options.check_steps = argc > 8 ? std::atoi(argv[8]) : 100;
  bool tf32 = false, deterministic = false;
  if (!ParseFlags(argc, argv, &options, &tf32, &deterministic)) return 2;
  at::globalContext().setAllowTF32CuDNN(tf32);
  at::globalContext().setAllowTF32CuBLAS(tf32);
  if (deterministic) {
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
    at::globalContext().setDeterministicCuDNN(true);
    options.cudnn_benchmark = false;
  }
  at::manual_seed(0);
  const at::Tensor x = at::randn({batch, channels, height, width}, at::kCUDA);
  const at::Tensor y = at::randint(classes, {batch}, at::TensorOptions(at::kCUDA).dtype(at::kLong));
  auto step = nimble::accelerate::TrainingStep::Capture(path, {x}, y, options);
  if (!step.ok()) {
    std::fprintf(stderr, "%s\n", step.status().ToString().c_str());
    return 1;
  }
  const nimble::accelerate::TrainingReport& r = (*step)->report();
  nlohmann::json out = {{"model", path},
                        {"batch", batch},
                        {"parameters", r.parameters},
                        {"check_steps", r.check_steps},
                        {"check_tolerance", r.check_tolerance},
                        {"max_loss_difference", r.max_loss_difference},
                        {"max_parameter_difference", r.max_parameter_difference},
                        {"check_warning", r.check_warning},
                        {"deterministic", deterministic},
                        {"timing_steps", r.timing_steps},
                        {"eager_ms", r.eager_ms},
                        {"captured_ms", r.captured_ms},
                        {"speedup", r.eager_ms / r.captured_ms},
                        {"captured_samples_per_s", batch / r.captured_ms * 1e3},
                        {"capture_s", r.capture_ns / 1e9},
                        {"mode", r.mode},
                        {"forward", r.forward},
                        {"streams", r.streams},
                        {"syncs", r.syncs},
                        {"choice", r.choice},
                        {"forward_ops", r.forward_ops},
                        {"forward_width", r.forward_width},
                        {"multi_streams", r.multi_streams},
                        {"multi_syncs", r.multi_syncs},
                        {"single_ms", r.single_ms},
                        {"multi_ms", r.multi_ms},
                        {"memset_nodes_replaced", r.memset_nodes_replaced},
                        {"memset_nodes_kept", r.memset_nodes_kept},
                        {"smem_carveout", r.smem_carveout},
                        {"carveout_nodes", r.carveout_nodes},
                        {"multi_smem_carveout", r.multi_smem_carveout},
                        {"carveout_other_ms", r.carveout_other_ms}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
