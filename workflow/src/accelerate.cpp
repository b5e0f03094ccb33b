// The accelerate workflow's order of steps, its checks before any GPU work, the eager fallback for a
// model that cannot be captured, and the one open --db database it reads op times from and stores
// results into.
#include "nimble/workflow/accelerate.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "accelerate_results.h"
#include "accelerate_session.h"
#include "nimble/workflow/calibrate.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/capturability.h"
#include "nimble/accelerate/runner.h"
#include "nimble/accelerate/cuda_devices.h"
#include "recorded_inputs.h"

namespace nimble::workflow {
namespace {

Status CheckOptions(const AccelerateOptions& options) {
  std::error_code error;  // the model's existence is checked by Accelerate, before its inputs are read
  if (options.record_replays < 0) {
    return InvalidArgument("--record-replays must be 0 or more (got " + std::to_string(options.record_replays) + ")");
  }
  if (!options.calibration.empty()) NIMBLE_RETURN_IF_ERROR(LoadCalibration(options.calibration).status());
  if (!options.dump_graphs_dir.empty()) {
    std::filesystem::create_directories(options.dump_graphs_dir, error);
    if (error || !std::filesystem::is_directory(options.dump_graphs_dir)) {
      return InvalidArgument("--dump-graphs " + options.dump_graphs_dir + ": not a directory that can be made" +
                             (error ? " (" + error.message() + ")" : ""));
    }
    // Writable, or the first capture would fail after its warm-up.
    const std::filesystem::path probe = std::filesystem::path(options.dump_graphs_dir) / ".nimble-write-probe";
    const bool writable = static_cast<bool>(std::ofstream(probe));
    std::filesystem::remove(probe, error);
    if (!writable) return InvalidArgument("--dump-graphs " + options.dump_graphs_dir + ": cannot write there");
  }
  if (accelerate::CudaDeviceCount() == 0) {
    return Unavailable("no CUDA device: ahead-of-time capture needs a GPU, and this machine has none "
                       "(nimble-prof report still works on recorded runs)");
  }
  return OkStatus();
}

// The steps after the checks up to model.nimble; `db` is the open --db database, or null.
StatusOr<AccelerateResult> RunSession(Session& session, const AccelerateOptions& options,
                                      std::unique_ptr<store::RunDatabase>& db) {
  NIMBLE_RETURN_IF_ERROR(session.Load());
  if (Status capturable = accelerate::CheckCapturable(session.model().model); !capturable.ok()) {
    if (!options.allow_eager_fallback) {
      return Status(capturable.code(), capturable.message() +
                                           " (--allow-eager-fallback times the model with libtorch instead; "
                                           "no model.nimble)");
    }
    AccelerateResult result = session.result();
    result.eager_fallback_reason = capturable.message();
    NIMBLE_ASSIGN_OR_RETURN(result.baseline_ms, session.TimeBaseline(options.iters));
    return result;
  }
  NIMBLE_RETURN_IF_ERROR(session.ChooseLayout());  // warns rather than fails
  session.RunUnmodifiedModel();
  NIMBLE_RETURN_IF_ERROR(session.PlanAndCapture());
  NIMBLE_RETURN_IF_ERROR(session.CheckOutputs());
  NIMBLE_RETURN_IF_ERROR(session.Measure());
  NIMBLE_RETURN_IF_ERROR(session.Predict());
  session.PredictMemory();
  session.Choose();
  NIMBLE_RETURN_IF_ERROR(session.RecordReplays());
  AccelerateResult result = session.result();
  if (db != nullptr) NIMBLE_RETURN_IF_ERROR(StoreResults(db, result, session.model().graph, session.recordings()));
  return result;
}

StatusOr<AccelerateResult> RunSteps(const AccelerateOptions& options, std::unique_ptr<store::RunDatabase>& db,
                                    const ProgressFn& progress) {
  Session session(options, &db, progress);
  NIMBLE_ASSIGN_OR_RETURN(AccelerateResult result, RunSession(session, options, db));
  if (result.eager_fallback_reason.empty()) NIMBLE_RETURN_IF_ERROR(session.Save());
  return result;
}

// model.nimble captured as its runners capture it, all buckets into one shared pool: the graph pool
// and the time the captures took.
Status MeasureCapture(const std::string& path, const std::string& device, int64_t* pool_bytes, int64_t* capture_ns) {
  accelerate::RunnerOptions options;
  options.device = device;
  NIMBLE_ASSIGN_OR_RETURN(accelerate::Runner runner, accelerate::Runner::Load(path, options));
  *pool_bytes = 0;
  *capture_ns = 0;
  for (int32_t b = 0; b < runner.bucket_count(); ++b) {
    *pool_bytes += runner.bucket_capture_stats(b).graph_pool_bytes;
    *capture_ns += runner.bucket_capture_stats(b).warmup_ns + runner.bucket_capture_stats(b).capture_ns;
  }
  return OkStatus();
}

// Each bucket through the whole workflow on its own, then one model.nimble holding them all.
StatusOr<AccelerateResult> RunBuckets(const AccelerateOptions& options, std::unique_ptr<store::RunDatabase>& db,
                                      const ProgressFn& progress) {
  Progress steps(progress);
  std::vector<accelerate::LoadedModel> models;
  accelerate::ArtifactMeta meta;
  std::vector<AccelerateResult> results;
  const size_t n = options.buckets.size();
  // The first bucket's layout, for every bucket: the buckets share their weights, and so their layout
  // (whether auto's rule or a measured trial chose it, or the trial failed).
  std::string layout;
  for (size_t b = 0; b < n; ++b) {
    AccelerateOptions one = options;
    if (!layout.empty()) one.memory_format = layout;
    one.seed_pool = options.seed_pool && n == 1;  // the buckets' captures share one pool
    one.budget_tries_streams = n == 1;  // branches or not is the artifact's, not each bucket's
    one.inputs = options.buckets[b];
    if (!options.dump_graphs_dir.empty()) {  // one subdirectory per bucket: their file names are the same
      one.dump_graphs_dir = (std::filesystem::path(options.dump_graphs_dir) / ("bucket-" + std::to_string(b))).string();
      std::error_code made;
      std::filesystem::create_directories(one.dump_graphs_dir, made);
      if (made) return InvalidArgument("--dump-graphs " + one.dump_graphs_dir + ": " + made.message());
    }
    one.buckets.clear();
    one.batch_sizes.clear();
    const std::string name = TensorSpecsText(one.inputs);
    steps.Step("bucket " + std::to_string(b + 1) + " of " + std::to_string(n) + ": " + name);
    if (!options.db.empty() && db == nullptr) {  // the last bucket's recorded runs were written with the file closed
      NIMBLE_ASSIGN_OR_RETURN(db, store::RunDatabase::Open(options.db, store::Access::kReadWrite));
    }
    Session session(one, &db, progress);
    StatusOr<AccelerateResult> result = RunSession(session, one, db);
    if (!result.ok()) return result.status().WithContext("bucket " + name);
    if (!result->eager_fallback_reason.empty()) return *result;  // not capturable: the same for every bucket
    if (b == 0) layout = result->channels_last ? "channels_last" : "contiguous";
    StatusOr<accelerate::ArtifactMeta> bucket_meta = session.Meta();
    if (!bucket_meta.ok()) return bucket_meta.status();
    if (b == 0) meta = *bucket_meta;
    // Any bucket's needs: a seeded graph (format 3), a branch capture (format 4, every bucket captured
    // so; a single-stream schedule captures the same either way).
    meta.format_version = std::max(meta.format_version, bucket_meta->format_version);
    meta.branches = meta.branches || bucket_meta->branches;
    meta.buckets.push_back({b == 0 ? "forward" : "forward_bucket_" + std::to_string(b), bucket_meta->inputs,
                            bucket_meta->mode, bucket_meta->schedule, bucket_meta->figures,
                            bucket_meta->smem_carveout});
    models.push_back(session.ChosenModel());
    results.push_back(std::move(*result));
  }  // each session's graphs are released with it; its chosen scheduled model is kept in `models`
  // Written beside the output and captured as the runners capture it (every bucket, one shared pool)
  // before it takes the output's place, so that a model.nimble that cannot be captured is never left.
  const std::string unverified = options.output + ".unverified";
  auto remove_unverified = [&] {
    std::error_code ignored;
    std::filesystem::remove(unverified, ignored);
  };
  steps.Step("writing " + options.output + " (" + std::to_string(n) + " buckets, one module)");
  StatusOr<accelerate::SavedArtifact> saved = accelerate::SaveArtifact(models, meta, unverified);
  if (!saved.ok()) return saved.status();
  models.clear();
  AccelerateResult out = results.front();
  out.shared_weights = saved->shared_constants;
  out.artifact_bytes = saved->file_bytes;
  steps.Step("capturing it as its runners do: every bucket into one shared pool");
  if (Status shared = MeasureCapture(unverified, options.device, &out.shared_pool_bytes, &out.shared_capture_ns);
      !shared.ok()) {
    remove_unverified();
    return shared.WithContext(options.output + ": capturing its buckets into one pool");
  }
  std::error_code error;
  std::filesystem::rename(unverified, options.output, error);
  if (error) {
    remove_unverified();
    return Internal(options.output + ": " + error.message());
  }
  // Against: each bucket's chosen mode in a pool of its own, as its session captured it.
  for (const AccelerateResult& bucket : results) {
    out.separate_pool_bytes +=
        (bucket.chosen == RunMode::kAotMulti ? bucket.multi : bucket.single).graph_pool_bytes;
  }
  out.buckets = std::move(results);
  return out;
}

}  // namespace

StatusOr<AccelerateResult> Accelerate(const AccelerateOptions& given, const ProgressFn& progress) {
  AccelerateOptions options = given;
  if (!options.buckets.empty() && !options.batch_sizes.empty()) {
    return InvalidArgument("--batch-sizes and --bucket both give the buckets: use one");
  }
  std::error_code missing;
  if (!std::filesystem::exists(options.model, missing)) return NotFound(options.model + ": no such file");
  if (options.inputs.empty() && !options.buckets.empty()) options.inputs = options.buckets.front();
  NIMBLE_RETURN_IF_ERROR(FillRecordedInputs(options.model, options.inputs, progress));
  if (!options.batch_sizes.empty()) {
    if (options.inputs.empty()) {
      return InvalidArgument("--input is required: --batch-sizes sets dimension 0 of the inputs it gives");
    }
    NIMBLE_ASSIGN_OR_RETURN(options.buckets, BatchBuckets(options.inputs, options.batch_sizes));
  }
  NIMBLE_RETURN_IF_ERROR(CheckBuckets(options.buckets));
  if (options.buckets.size() == 1) options.inputs = options.buckets.front();
  NIMBLE_RETURN_IF_ERROR(CheckOptions(options));
  // A --db that does not exist yet is made here, and removed again if the call fails.
  std::unique_ptr<store::RunDatabase> db;
  bool created = false;
  if (!options.db.empty()) {
    std::error_code error;
    created = !std::filesystem::exists(options.db, error);
    NIMBLE_ASSIGN_OR_RETURN(db, created ? store::RunDatabase::Create(options.db)
                                        : store::RunDatabase::Open(options.db, store::Access::kReadWrite));
  }
  StatusOr<AccelerateResult> result =
      options.buckets.size() > 1 ? RunBuckets(options, db, progress) : RunSteps(options, db, progress);
  const bool nothing_stored = !result.ok() || (result->stored_runs.empty() && result->eager_run < 0);
  if (created && nothing_stored) {  // a failed call, or the eager fallback, which stores nothing
    db.reset();
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(options.db + suffix, ignored);
  }
  return result;
}

}  // namespace nimble::workflow
