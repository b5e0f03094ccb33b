// What a model.nimble says about itself (the "nimble/meta.json" entry of the TorchScript archive):
// format and tool versions, the device it was captured for, the inputs, the schedule, and the
// predicted and measured figures. Encoding, decoding and the compatibility check are pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nimble/core/run.h"
#include "nimble/core/schedule.h"
#include "nimble/core/status.h"
#include "nimble/core/tensor_spec.h"

namespace nimble::accelerate {

// The newest format this nimble reads and writes. Version 1: one captured graph ("forward"); version 2
// adds "buckets", one graph per input shape (written only when there are several, so that a
// single-shape model.nimble stays readable by nimbles that know version 1 alone); version 3: the graph
// may call nimble::seed_pool (RewriteOptions::pool_seeds), unknown to nimbles before it (written only
// for a seeded graph); version 4: the graph is captured with its streams as branches of one capture
// stream ("branches": true, CaptureOptions::branches), which nimbles before it would capture on real
// streams (written only then).
inline constexpr int32_t kArtifactFormatVersion = 4;
inline constexpr int32_t kArtifactFormatVersionSingle = 1;
inline constexpr int32_t kArtifactFormatVersionBuckets = 2;
inline constexpr int32_t kArtifactFormatVersionSeeded = 3;
inline constexpr int32_t kArtifactFormatVersionBranches = 4;
inline constexpr const char* kArtifactMetaFile = "nimble/meta.json";
// float32 math in IEEE fp32: TF32 off in cuBLAS and cuDNN (SetFloat32Precision, model_timing.h). What
// nimble-accelerate checks the outputs with by default, and so what a replay must capture with.
inline constexpr const char* kFloat32PrecisionIeee = "ieee";
// PyTorch's default: TF32 allowed in cuDNN convolutions, off in cuBLAS (nimble-accelerate --tf32).
inline constexpr const char* kFloat32PrecisionTf32 = "tf32";

// One input shape of a model.nimble that holds several: the method of the archive's module that runs
// it, captured on its own with its own schedule.
struct ArtifactBucket {
  std::string method;              // "forward" for the first; "forward_bucket_1", ... for the others
  std::vector<TensorSpec> inputs;
  RunMode mode = RunMode::kAotSingle;
  StreamAssignment schedule;
  std::map<std::string, double> figures;
  int32_t smem_carveout = -1;  // "smem_carveout": CaptureOptions::smem_carveout of its graph; absent: -1
  friend bool operator==(const ArtifactBucket&, const ArtifactBucket&) = default;
};

struct ArtifactMeta {
  int32_t format_version = kArtifactFormatVersionSingle;  // as read; written as at least 2 with buckets, 3 when seeded
  std::string nimble_version;
  std::string torch_version;       // "2.11.0"
  std::string device_name;         // "NVIDIA H100 80GB HBM3", or "cpu"
  std::string compute_capability;  // "sm_90", or "" on the CPU
  std::string source_model;        // the model.pt it was made from
  RunMode mode = RunMode::kAotSingle;  // kAotSingle or kAotMulti; "aot-single" or "aot-multi" in the file
  std::vector<TensorSpec> inputs;  // "input_shapes", "input_dtypes", "input_ranges" in the file; files
                                   // without dtypes: float32
  std::string float32_precision = kFloat32PrecisionIeee;  // "ieee" or "tf32"; files without the field: ieee
  StreamAssignment schedule;       // op -> stream and the syncs, by op id of the frozen graph
  std::map<std::string, double> figures;  // "measured_aot_multi_ms", "predicted_aot_multi_ms", ...
  // Several input shapes (format 2): every bucket, the first being the one the fields above describe
  // (method "forward"). Empty: the one graph above.
  std::vector<ArtifactBucket> buckets;
  bool branches = false;  // every graph captured with CaptureOptions::branches (format 4)
  // The carveout the graph was measured with, asked again when it is captured (CaptureOptions::
  // smem_carveout; -1, or absent in the file: each kernel's own). A hint to the driver that changes no
  // result, so files without it, and nimbles that ignore it, run the same model.
  int32_t smem_carveout = -1;
  friend bool operator==(const ArtifactMeta&, const ArtifactMeta&) = default;
};

// Where a model.nimble is being loaded.
struct ArtifactHost {
  std::string nimble_version;
  std::string torch_version;
  std::string device_name;
  std::string compute_capability;
};

// The buckets of `meta`: its own, or the one graph it describes as a bucket of method "forward".
std::vector<ArtifactBucket> ArtifactBuckets(const ArtifactMeta& meta);

// Writes format 1 without buckets, format 2 with them.
std::string EncodeArtifactMeta(const ArtifactMeta& meta);
// DataLoss naming `file` when the text is not the JSON EncodeArtifactMeta writes.
StatusOr<ArtifactMeta> DecodeArtifactMeta(const std::string& json, const std::string& file);

// FailedPrecondition, naming `file`, when the format, the torch version or the device differ:
// "model.nimble was built for NVIDIA H100 80GB HBM3 (sm_90), this is NVIDIA A100 (sm_80)".
Status CheckArtifactCompatible(const ArtifactMeta& meta, const ArtifactHost& host, const std::string& file);

}  // namespace nimble::accelerate
