// The import workflow: detect the format, read the whole trace with its reader, then write it as one run.
#include "nimble/workflow/import.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "kineto_reader.h"
#include "nimble/store/nsys_export.h"
#include "nimble/store/run_writer.h"

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;

constexpr char kSqliteHeader[] = "SQLite format 3";  // followed by a NUL: 16 bytes
constexpr char kNimbleApplicationId[] = "NMBL";      // PRAGMA application_id, big-endian at byte 68

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int64_t StreamsOf(const Trace& trace) {
  std::set<std::pair<int32_t, int64_t>> streams;
  for (const KernelRecord& k : trace.kernels) streams.emplace(k.device.value(), k.stream.value());
  for (const MemcpyRecord& c : trace.memcpys) streams.emplace(c.device.value(), c.stream.value());
  for (const MemsetRecord& m : trace.memsets) streams.emplace(m.device.value(), m.stream.value());
  return static_cast<int64_t>(streams.size());
}

Status CheckOptions(const ImportOptions& options) {
  if (options.input.empty()) return InvalidArgument("import needs a trace file");
  if (options.output.empty()) return InvalidArgument("import needs an output run database (-o run.db)");
  std::error_code ec;
  if (fs::exists(options.output, ec) && fs::equivalent(options.input, options.output, ec)) {
    return InvalidArgument("the output " + options.output + " is the input trace itself; name another file with -o");
  }
  return OkStatus();
}

Status WriteRun(const ImportOptions& options, const ImportedTrace& imported, RunInfo& run) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<store::RunWriter> writer, store::RunWriter::Create(options.output, run));
  const std::string where = "writing the imported run to " + options.output;
  NIMBLE_RETURN_IF_ERROR(writer->AppendTrace(imported.trace).WithContext(where));
  for (const StatEntry& stat : imported.stats) NIMBLE_RETURN_IF_ERROR(writer->AddStat(stat).WithContext(where));
  run.id = writer->run_id();
  return writer->Commit().WithContext(where);
}

// A trace without a single record is refused (nothing is written); one without GPU work is imported with a
// warning, since a report of it has no GPU time to show.
Status CheckHasActivity(const std::string& path, ImportedTrace* imported) {
  const Trace& t = imported->trace;
  if (t.kernels.empty() && t.memcpys.empty() && t.memsets.empty() && t.syncs.empty() && t.api_calls.empty() &&
      t.ranges.empty() && t.overheads.empty()) {
    return DataLoss(path + ": the trace holds no events to import");
  }
  const bool said = std::any_of(imported->stats.begin(), imported->stats.end(),
                                [](const StatEntry& s) { return s.name == "import.no_kernels"; });  // nsys's own
  if (!said && t.kernels.empty() && t.memcpys.empty() && t.memsets.empty()) {
    imported->stats.push_back({"import.no_gpu_activity", 1, Severity::kWarning,
                               "the trace holds no GPU kernel, copy or memset (torch.profiler records them with "
                               "ProfilerActivity.CUDA among its activities, nsys with --trace=cuda): the report has "
                               "no GPU time to show"});
  }
  return OkStatus();
}

}  // namespace

int64_t ImportResult::events_read() const {
  for (const StatEntry& s : stats) {
    if (s.name == "import.events_read") return s.value;
  }
  return 0;
}

StatusOr<DetectedFormat> DetectTraceFormat(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return NotFound(path + ": no such file");
    return FailedPrecondition(path + ": cannot read: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return FailedPrecondition(path + ": is a directory, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return FailedPrecondition(path + ": cannot open: " + std::strerror(errno));
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (head.empty()) return DataLoss(path + ": the file is empty");
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) {
    return DetectedFormat{TraceFormat::kKinetoJson, true};
  }
  if (head.size() >= 16 && head.compare(0, 16, std::string(kSqliteHeader, 16)) == 0) {
    if (head.size() >= 72 && head.compare(68, 4, kNimbleApplicationId) == 0) {
      return FailedPrecondition(path + " is already a Nimble run database; report it directly: nimble-prof report " +
                                path);
    }
    return DetectedFormat{TraceFormat::kNsysSqlite, false};
  }
  size_t at = head.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 byte order mark
  while (at < head.size() && IsJsonSpace(head[at])) ++at;
  if (at < head.size() && (head[at] == '{' || head[at] == '[')) return DetectedFormat{TraceFormat::kKinetoJson, false};
  if (at == head.size() && head.size() < 4096) return DataLoss(path + ": the file holds only white space");
  return DataLoss(path + ": not a trace Nimble can import: expected a torch.profiler JSON trace (text starting with "
                         "'{' or '['), a gzip-compressed one, or an Nsight Systems SQLite export");
}

StatusOr<ImportResult> Import(const ImportOptions& options, const ProgressFn& progress_fn) {
  const Progress progress(progress_fn);
  NIMBLE_RETURN_IF_ERROR(CheckOptions(options));
  ImportResult result;
  result.input = options.input;
  result.output = options.output;
  NIMBLE_ASSIGN_OR_RETURN(result.format, DetectTraceFormat(options.input));
  const bool kineto = result.format.format == TraceFormat::kKinetoJson;
  progress.Step("reading " + options.input + (kineto ? " (torch.profiler trace" : " (Nsight Systems export") +
                (result.format.gzip ? ", gzip)" : ")"));
  NIMBLE_ASSIGN_OR_RETURN(ImportedTrace imported, kineto ? ReadKinetoTrace(options.input, options.threads)
                                                         : store::ReadNsysExport(options.input));
  NIMBLE_RETURN_IF_ERROR(CheckHasActivity(options.input, &imported));
  result.run = imported.run;
  result.run.command = options.command.empty() ? "nimble-prof import " + options.input : options.command;
  progress.Step("writing the run to " + options.output);
  NIMBLE_RETURN_IF_ERROR(WriteRun(options, imported, result.run));
  const Trace& t = imported.trace;
  result.source_format = imported.source_format;
  result.kernels = static_cast<int64_t>(t.kernels.size());
  result.memcpys = static_cast<int64_t>(t.memcpys.size());
  result.memsets = static_cast<int64_t>(t.memsets.size());
  result.syncs = static_cast<int64_t>(t.syncs.size());
  result.api_calls = static_cast<int64_t>(t.api_calls.size());
  result.ranges = static_cast<int64_t>(t.ranges.size());
  result.external_correlations = static_cast<int64_t>(t.external_correlations.size());
  result.overheads = static_cast<int64_t>(t.overheads.size());
  result.devices = static_cast<int64_t>(t.devices.size());
  result.streams = StreamsOf(t);
  result.iteration_range = imported.iteration_range;
  result.stats = imported.stats;
  for (const StatEntry& s : imported.stats) {
    if (s.severity < Severity::kWarning) continue;
    result.warnings.push_back(s);
    progress.Warning(s.name + " = " + std::to_string(s.value) + ": " + s.description);
  }
  return result;
}

}  // namespace nimble::workflow
