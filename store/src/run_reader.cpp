#include "nimble/store/run_reader.h"

#include "integrity.h"
#include "open_database.h"
#include "results_writer.h"
#include "run_reader_impl.h"
#include "trace_loader.h"

namespace nimble::store {

RunReader::RunReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunReader::~RunReader() = default;

StatusOr<std::unique_ptr<RunReader>> RunReader::Open(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenForReading(path));
  return FromDatabase(std::move(db));
}

StatusOr<std::unique_ptr<RunReader>> RunReader::FromDatabase(std::unique_ptr<Database> db) {
  NIMBLE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(*db));
  return std::unique_ptr<RunReader>(new RunReader(std::make_unique<Impl>(std::move(db), version)));
}

const std::string& RunReader::path() const { return impl_->db().path(); }

int RunReader::schema_version() const { return impl_->schema_version(); }

StatusOr<std::vector<RunInfo>> RunReader::Runs() const { return impl_->ReadRuns("ORDER BY runId", RunId()); }

StatusOr<RunInfo> RunReader::Run(RunId run) const {
  NIMBLE_ASSIGN_OR_RETURN(std::vector<RunInfo> runs, impl_->ReadRuns("WHERE runId = ?", run));
  if (runs.empty()) return NotFound(path() + ": no run " + std::to_string(run.value()));
  return runs.front();
}

StatusOr<Trace> RunReader::LoadTrace(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  NIMBLE_RETURN_IF_ERROR(impl_->VerifyOnce(run, DigestScope::kTrace));
  return TraceLoader(impl_->db(), run).Load();
}

// The graph and attribution queries say `+runId` so that values come from the tables, never from a
// covering index: the tables are what the run's content digests cover.
StatusOr<OpGraph> RunReader::LoadGraph(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  NIMBLE_RETURN_IF_ERROR(impl_->VerifyOnce(run, DigestScope::kGraph));
  OpGraph graph;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT opId, name, kind, outputShapes, gpuTimeNs FROM ops WHERE +runId = ? ORDER BY opId", run,
      [&](const Statement& row) {
        graph.ops.push_back({OpId(static_cast<int32_t>(row.ColumnInt(0))), row.ColumnText(1), row.ColumnText(2),
                             row.ColumnText(3), row.ColumnInt(4)});
      }));
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT srcOpId, dstOpId, kind FROM op_edges WHERE +runId = ? ORDER BY rowid", run, [&](const Statement& row) {
        graph.edges.push_back({OpId(static_cast<int32_t>(row.ColumnInt(0))),
                               OpId(static_cast<int32_t>(row.ColumnInt(1))), static_cast<EdgeKind>(row.ColumnInt(2))});
      }));
  if (Status valid = graph.Validate(); !valid.ok()) {
    return DataLoss(path() + ": the stored op graph of run " + std::to_string(run.value()) + " is invalid: " +
                    valid.message());
  }
  return graph;
}

StatusOr<std::vector<KernelAttribution>> RunReader::LoadAttribution(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  NIMBLE_RETURN_IF_ERROR(impl_->VerifyOnce(run, DigestScope::kAttribution));
  std::vector<KernelAttribution> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT opId, kernelIndex FROM op_kernels WHERE +runId = ? ORDER BY rowid", run, [&](const Statement& row) {
        out.push_back({OpId(static_cast<int32_t>(row.ColumnInt(0))), KernelIndex(row.ColumnInt(1))});
      }));
  NIMBLE_RETURN_IF_ERROR(CheckAttribution(impl_->db(), run, out));
  return out;
}

StatusOr<std::optional<StreamAssignment>> RunReader::LoadAssignment(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  std::optional<StreamAssignment> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT numStreams FROM stream_assignment WHERE runId = ?", run,
      [&](const Statement& row) { out.emplace().num_streams = static_cast<int32_t>(row.ColumnInt(0)); }));
  if (!out) return out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT streamId FROM stream_assignment_ops WHERE runId = ? ORDER BY opId", run,
      [&](const Statement& row) { out->op_stream.push_back(row.ColumnId<StreamId>(0)); }));
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT srcOpId, dstOpId, kind FROM stream_assignment_syncs WHERE runId = ? ORDER BY rowid", run,
      [&](const Statement& row) {
        out->syncs.push_back({OpId(static_cast<int32_t>(row.ColumnInt(0))),
                              OpId(static_cast<int32_t>(row.ColumnInt(1))), static_cast<EdgeKind>(row.ColumnInt(2))});
      }));
  return out;
}

StatusOr<std::vector<Metric>> RunReader::LoadMetrics(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  std::vector<Metric> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT name, value, unit, windowIndex FROM metrics WHERE runId = ? ORDER BY rowid", run,
      [&](const Statement& row) {
        out.push_back({row.ColumnText(0), row.ColumnDouble(1), row.ColumnText(2),
                       static_cast<int32_t>(row.ColumnInt(3))});
      }));
  return out;
}

StatusOr<std::vector<Speedup>> RunReader::LoadSpeedups(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  std::vector<Speedup> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT mode, measuredMs, predictedMs, baselineMs FROM speedups WHERE runId = ? ORDER BY rowid", run,
      [&](const Statement& row) -> Status {
        NIMBLE_ASSIGN_OR_RETURN(RunMode mode, impl_->EnumColumn(row, 0, ParseRunMode, "speedups", "mode", run));
        out.push_back({mode, row.ColumnDouble(1), row.ColumnDouble(2), row.ColumnDouble(3)});
        return OkStatus();
      }));
  return out;
}

StatusOr<std::vector<StatEntry>> RunReader::LoadStats(RunId run) const {
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(impl_->db(), run));
  std::vector<StatEntry> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT name, value, severity, description FROM stats WHERE runId = ? ORDER BY rowid", run,
      [&](const Statement& row) -> Status {
        NIMBLE_ASSIGN_OR_RETURN(Severity severity, impl_->EnumColumn(row, 2, ParseSeverity, "stats", "severity", run));
        out.push_back({row.ColumnText(0), row.ColumnInt(1), severity, row.ColumnText(3)});
        return OkStatus();
      }));
  return out;
}

StatusOr<std::vector<TableCount>> RunReader::TableCounts() const {
  std::vector<TableCount> out;
  NIMBLE_RETURN_IF_ERROR(impl_->ForEachRow(
      "SELECT name, type = 'view' FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
      "ORDER BY name", RunId(),
      [&](const Statement& row) { out.push_back({row.ColumnText(0), 0, row.ColumnInt(1) != 0}); }));
  for (TableCount& c : out) {
    // Table names come from the schema itself, quoted in case one needs it.
    NIMBLE_ASSIGN_OR_RETURN(c.rows, impl_->db().QueryInt("SELECT count(*) FROM \"" + c.table + "\""));
  }
  return out;
}

}  // namespace nimble::store
