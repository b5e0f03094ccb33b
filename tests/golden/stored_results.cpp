// Clearing and printing a database's stored analysis results through the store's own reader and writer.
#include "stored_results.h"

#include <charconv>
#include <optional>
#include <vector>

#include "nimble/store/run_reader.h"
#include "nimble/store/run_writer.h"

namespace nimble::golden {
namespace {

std::string Number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

void AppendMetrics(const std::vector<Metric>& metrics, std::string& out) {
  out += "  metrics: " + std::to_string(metrics.size()) + "\n";
  for (const Metric& m : metrics) {
    out += "    window " + std::to_string(m.window) + "  " + m.name + " = " + Number(m.value) + " " + m.unit + "\n";
  }
}

void AppendSpeedups(const std::vector<Speedup>& speedups, std::string& out) {
  out += "  speedups: " + std::to_string(speedups.size()) + "\n";
  for (const Speedup& s : speedups) {
    out += "    " + std::string(RunModeName(s.mode)) + ": measured " + Number(s.measured_ms) + " ms, predicted " + Number(s.predicted_ms) +
           " ms, baseline " + Number(s.baseline_ms) + " ms\n";
  }
}

void AppendAssignment(const std::optional<StreamAssignment>& a, std::string& out) {
  if (!a) {
    out += "  assignment: none\n";
    return;
  }
  out += "  assignment: " + std::to_string(a->num_streams) + " streams, " + std::to_string(a->op_stream.size()) +
         " ops, " + std::to_string(a->syncs.size()) + " syncs\n    op streams:";
  for (StreamId s : a->op_stream) out += " " + std::to_string(s.value());
  out += "\n    syncs:";
  for (const OpEdge& e : a->syncs) out += " " + std::to_string(e.src.value()) + "->" + std::to_string(e.dst.value());
  out += "\n";
}

}  // namespace

Status ClearStoredResults(const std::string& db) {
  std::vector<std::pair<RunId, bool>> runs;  // and whether the run has an assignment stored
  {
    NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(db));
    NIMBLE_ASSIGN_OR_RETURN(auto infos, reader->Runs());
    for (const RunInfo& r : infos) {
      const auto assignment = reader->LoadAssignment(r.id);
      if (!assignment.ok()) return assignment.status();
      runs.emplace_back(r.id, assignment->has_value());
    }
  }
  for (const auto& [id, has_assignment] : runs) {
    NIMBLE_ASSIGN_OR_RETURN(auto writer, store::RunWriter::OpenRun(db, id));
    NIMBLE_RETURN_IF_ERROR(writer->WriteMetrics({}));
    NIMBLE_RETURN_IF_ERROR(writer->WriteSpeedups({}));
    if (has_assignment) NIMBLE_RETURN_IF_ERROR(writer->WriteAssignment(StreamAssignment{}));
    NIMBLE_RETURN_IF_ERROR(writer->Commit());
  }
  return OkStatus();
}

StatusOr<std::string> DescribeStoredResults(const std::string& db) {
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(db));
  NIMBLE_ASSIGN_OR_RETURN(auto runs, reader->Runs());
  std::string out;
  for (const RunInfo& r : runs) {
    out += "run " + std::to_string(r.id.value()) + "\n";
    NIMBLE_ASSIGN_OR_RETURN(auto metrics, reader->LoadMetrics(r.id));
    NIMBLE_ASSIGN_OR_RETURN(auto speedups, reader->LoadSpeedups(r.id));
    AppendMetrics(metrics, out);
    AppendSpeedups(speedups, out);
    // Read in place: moving the optional out of its StatusOr trips GCC 12's maybe-uninitialized.
    const auto assignment = reader->LoadAssignment(r.id);
    if (!assignment.ok()) return assignment.status();
    AppendAssignment(*assignment, out);
  }
  return out;
}

}  // namespace nimble::golden
