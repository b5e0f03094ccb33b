// model.nimble: the scheduled module saved as a TorchScript archive with its meta.json beside the code.
// Loading registers the nimble:: operators first, checks the meta against this process and device,
// and returns a model the AotGraph captures. One call, one file; calls share no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

struct LoadedArtifact {
  LoadedModel model;  // the scheduled module on the requested device, input shapes from the meta
  ArtifactMeta meta;
  // One per ArtifactBuckets(meta), in its order: the module's method of that bucket with its inputs
  // (the first is `model`). All share the one module and its weights.
  std::vector<LoadedModel> buckets;
};

// What SaveArtifact did with the buckets' weights.
struct SavedArtifact {
  int64_t file_bytes = 0;
  int32_t shared_constants = 0;  // tensor constants of later buckets replaced by an equal one of an earlier
};

// This process: nimble and torch versions, and the name and compute capability of `device`
// ("cpu" gives device_name "cpu"). Unavailable for a CUDA device that does not exist.
StatusOr<ArtifactHost> DescribeHost(const std::string& device);

// Writes `scheduled` (from RewriteForStreams) and `meta` to `path`, replacing it.
Status SaveArtifact(const LoadedModel& scheduled, const ArtifactMeta& meta, const std::string& path);

// Several input shapes in one file: `scheduled[i]` (each from RewriteForStreams, of one model for
// one input shape) becomes the method meta.buckets[i].method of one module; a tensor constant (a
// weight) equal to one an earlier bucket holds is replaced by it, so the file and the loaded module
// hold each weight once. InvalidArgument when the counts differ or the first method is not "forward".
// Written to `path`.partial, then renamed.
StatusOr<SavedArtifact> SaveArtifact(const std::vector<LoadedModel>& scheduled, const ArtifactMeta& meta,
                                     const std::string& path);

// NotFound, DataLoss (not a model.nimble, or no meta), FailedPrecondition (other version or device;
// `check_host` false skips the check, for inspection tools).
StatusOr<LoadedArtifact> LoadArtifact(const std::string& path, const std::string& device, bool check_host = true);

}  // namespace nimble::accelerate
