// model.nimble: the scheduled module saved as a TorchScript archive with its meta.json beside the code.
// Loading registers the nimble:: operators first, checks the meta against this process and device,
// and returns a model the AotGraph captures. One call, one file; calls share no state.
#pragma once

#include <string>

#include "nimble/accelerate/artifact_meta.h"
#include "nimble/accelerate/loaded_model.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

struct LoadedArtifact {
  LoadedModel model;  // the scheduled module on the requested device, input shapes from the meta
  ArtifactMeta meta;
};

// This process: nimble and torch versions, and the name and compute capability of `device`
// ("cpu" gives device_name "cpu"). Unavailable for a CUDA device that does not exist.
StatusOr<ArtifactHost> DescribeHost(const std::string& device);

// Writes `scheduled` (from RewriteForStreams) and `meta` to `path`, replacing it.
Status SaveArtifact(const LoadedModel& scheduled, const ArtifactMeta& meta, const std::string& path);

// NotFound, DataLoss (not a model.nimble, or no meta), FailedPrecondition (other version or device;
// `check_host` false skips the check, for inspection tools).
StatusOr<LoadedArtifact> LoadArtifact(const std::string& path, const std::string& device, bool check_host = true);

}  // namespace nimble::accelerate
