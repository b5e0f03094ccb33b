#include "nimble/workflow/export_chrome.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "export_chrome_events.h"
#include "export_chrome_json.h"
#include "export_chrome_layout.h"
#include "export_chrome_output.h"
#include "export_chrome_timeline.h"

namespace nimble::workflow {
namespace {

// Processes of one run sort together, after those of the runs before it.
constexpr int64_t kProcessSortStride = 1000;

// A run read, reported and turned into a timeline; kept until the file is written, because every ts
// is relative to the earliest record of all the runs exported.
struct LoadedRun {
  Trace trace;
  std::vector<KernelAttribution> attribution;
  RunReport report;
  RunTimeline timeline;
};

StatusOr<LoadedRun> LoadRun(const store::RunDatabase& db, const RunInfo& run, const ChromeExportOptions& options) {
  const store::RunReader& reader = db.reader();
  LoadedRun out;
  NIMBLE_ASSIGN_OR_RETURN(out.trace, reader.LoadTrace(run.id));
  NIMBLE_ASSIGN_OR_RETURN(OpGraph graph, reader.LoadGraph(run.id));
  NIMBLE_ASSIGN_OR_RETURN(out.attribution, reader.LoadAttribution(run.id));
  const std::string where = db.path() + ", run " + std::to_string(run.id.value());
  ReportOptions report_options;
  report_options.run = run.id.value();
  report_options.store = false;
  report_options.iteration_range = options.iteration_range;
  NIMBLE_ASSIGN_OR_RETURN(out.report,
                          BuildRunReport(run, out.trace, std::move(graph), out.attribution, report_options, where));
  NIMBLE_ASSIGN_OR_RETURN(out.timeline, BuildRunTimeline(out.trace, out.report, out.attribution, where));
  return out;
}

// The earliest instant drawn, floored to a whole microsecond, so that the decimals of every ts are the
// nanoseconds of the recording clock. 0 when nothing is drawn.
int64_t BaseTimeNs(const std::vector<LoadedRun>& runs) {
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const LoadedRun& run : runs) {
    for (const ChromeTrack& track : run.timeline.tracks) {
      for (const TrackSpan& span : track.spans) earliest = std::min(earliest, span.start_ns);
    }
  }
  if (earliest == std::numeric_limits<int64_t>::max()) return 0;
  const int64_t rem = earliest % 1000;
  return earliest - (rem < 0 ? rem + 1000 : rem);
}

// Top-level fields: Kineto's names where the concept is Kineto's (readers such as Holistic Trace Analysis
// add baseTimeNanoseconds to every ts), and what the file was made from.
nlohmann::json Header(const store::RunDatabase& db, const std::vector<LoadedRun>& runs, int64_t base_time_ns) {
  std::map<int32_t, nlohmann::json> devices;
  nlohmann::json nimble_runs = nlohmann::json::array();
  for (const LoadedRun& run : runs) {
    for (const DeviceInfo& d : run.trace.devices) {
      devices.try_emplace(d.id.value(), nlohmann::json{{"id", d.id.value()},
                                                       {"name", run.trace.strings.Get(d.name)},
                                                       {"totalGlobalMem", d.global_memory_bytes},
                                                       {"computeMajor", d.compute_major},
                                                       {"computeMinor", d.compute_minor},
                                                       {"maxThreadsPerBlock", d.max_threads_per_block},
                                                       {"maxThreadsPerMultiprocessor", d.max_threads_per_sm},
                                                       {"regsPerMultiprocessor", d.max_registers_per_sm},
                                                       {"sharedMemPerMultiprocessor", d.max_shared_bytes_per_sm},
                                                       {"numSms", d.sm_count}});
    }
    const RunInfo& info = run.report.run;
    nimble_runs.push_back({{"id", info.id.value()},
                           {"mode", RunModeName(info.mode)},
                           {"model", info.model},
                           {"inputs", info.inputs},
                           {"device", info.device},
                           {"iteration_range", run.report.iteration_range}});
  }
  nlohmann::json device_properties = nlohmann::json::array();
  for (auto& [id, properties] : devices) device_properties.push_back(std::move(properties));
  return {{"schemaVersion", 1},
          {"displayTimeUnit", "ns"},
          {"baseTimeNanoseconds", base_time_ns},
          {"deviceProperties", std::move(device_properties)},
          {"nimble", {{"database", db.path()}, {"runs", std::move(nimble_runs)}}}};
}

}  // namespace

StatusOr<ChromeExportResult> ExportChrome(const store::RunDatabase& db, const std::string& out_path,
                                          const ChromeExportOptions& options, const ProgressFn& progress_fn) {
  const Progress progress(progress_fn);
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> selected, SelectRuns(db.reader(), options.run));
  // Everything is read and checked before the output file exists: bad data leaves no file behind.
  std::vector<LoadedRun> runs;
  runs.reserve(selected.size());
  for (const RunInfo& run : selected) {
    progress.Step("reading run " + std::to_string(run.id.value()) + " of " + db.path());
    NIMBLE_ASSIGN_OR_RETURN(LoadedRun loaded, LoadRun(db, run, options));
    for (const std::string& warning : loaded.report.warnings) progress.Warning(warning);
    runs.push_back(std::move(loaded));
  }

  ChromeExportResult result;
  result.path = out_path;
  result.base_time_ns = BaseTimeNs(runs);
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<ChromeOutputFile> file, ChromeOutputFile::Create(out_path));
  result.gzip = file->gzip();
  progress.Step("writing " + out_path);
  ChromeJsonWriter json(*file, result.base_time_ns);
  NIMBLE_RETURN_IF_ERROR(json.Begin(Header(db, runs, result.base_time_ns)));
  PidRegistry pids;
  int64_t next_flow_id = 1;
  for (size_t i = 0; i < runs.size(); ++i) {
    LoadedRun& run = runs[i];
    const TimelineLayout layout = LayOutTimeline(run.timeline, run.trace, pids);
    ChromeRunContext context{&run.trace, &run.report, &run.timeline, &layout,
                             runs.size() > 1 ? "Run " + std::to_string(run.report.run.id.value()) + " · " : "",
                             static_cast<int64_t>(i) * kProcessSortStride};
    ChromeRunSummary summary;
    summary.run = run.report.run.id.value();
    NIMBLE_RETURN_IF_ERROR(WriteRunMetadata(context, json));
    NIMBLE_RETURN_IF_ERROR(WriteRunSpans(context, json, summary));
    NIMBLE_RETURN_IF_ERROR(WriteRunFlows(context, json, next_flow_id, summary));
    result.runs.push_back(summary);
    progress.Tick("run", static_cast<int64_t>(i) + 1, static_cast<int64_t>(runs.size()));
  }
  NIMBLE_RETURN_IF_ERROR(json.Finish());
  NIMBLE_RETURN_IF_ERROR(file->Commit());
  result.events = json.events();
  result.bytes = file->file_bytes();
  return result;
}

}  // namespace nimble::workflow
