// What nimble-accelerate writes: model.nimble, the chosen mode's scheduled module with its meta.
#include "accelerate_session.h"

#include <algorithm>
#include <vector>

#include "nimble/accelerate/artifact.h"

namespace nimble::workflow {

using namespace ::nimble::accelerate;  // NOLINT: the session drives the accelerate module step by step

StatusOr<ArtifactMeta> Session::Meta() const {
  const bool multi = result_.chosen == RunMode::kAotMulti;
  ArtifactMeta meta;
  NIMBLE_ASSIGN_OR_RETURN(ArtifactHost host, DescribeHost(args_.device));
  meta.nimble_version = host.nimble_version;
  meta.torch_version = host.torch_version;
  meta.device_name = host.device_name;
  meta.compute_capability = host.compute_capability;
  meta.source_model = args_.model;
  meta.mode = result_.chosen;
  meta.inputs = specs_;
  meta.float32_precision = Precision();  // Load set it for every run and check
  meta.schedule = multi ? result_.multi.schedule : result_.single.schedule;
  const std::vector<int64_t>& seeds = (multi ? result_.multi : result_.single).pool_seed_bytes;
  if (std::any_of(seeds.begin(), seeds.end(), [](int64_t b) { return b > 0; })) {
    meta.format_version = accelerate::kArtifactFormatVersionSeeded;  // its graph calls nimble::seed_pool
  }
  meta.smem_carveout = (multi ? result_.multi : result_.single).smem_carveout;
  if (multi && result_.multi.branch_capture) {
    meta.branches = true;
    meta.format_version = accelerate::kArtifactFormatVersionBranches;
  }
  meta.figures = {{"baseline_ms", result_.baseline_ms},
                  {"measured_aot_single_ms", result_.single.median_ms},
                  {"measured_aot_multi_ms", result_.multi.median_ms},
                  {"predicted_aot_single_ms", result_.single.predicted_ms},
                  {"predicted_aot_multi_ms", result_.multi.predicted_ms},
                  {"predicted_aot_multi_unanchored_ms", result_.multi.predicted_unanchored_ms},
                  {"duration_scale", result_.duration_scale},
                  {"prep_ms", static_cast<double>(result_.prep_ns) / 1e6}};
  return meta;
}

LoadedModel Session::ChosenModel() const {
  return result_.chosen == RunMode::kAotMulti ? multi_model_.model : single_model_.model;
}

Status Session::Save() {
  progress_.Step("writing " + args_.output);
  NIMBLE_ASSIGN_OR_RETURN(const ArtifactMeta meta, Meta());
  return SaveArtifact(ChosenModel(), meta, args_.output);
}

}  // namespace nimble::workflow
