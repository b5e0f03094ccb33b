#include "results_writer.h"

#include <iterator>
#include <string>

namespace nimble::store {
namespace {

// Deletes run `run`'s rows from each of `tables`.
Status DeleteRunRows(Database& db, RunId run, std::initializer_list<const char*> tables) {
  for (const char* table : tables) {
    NIMBLE_ASSIGN_OR_RETURN(Statement del, db.Prepare(std::string("DELETE FROM ") + table + " WHERE runId = ?"));
    del.BindInt(1, run.value());
    NIMBLE_RETURN_IF_ERROR(del.Run());
  }
  return OkStatus();
}

void BindRunColumns(Statement& s, const RunInfo& run) {
  s.BindText(1, run.model);
  s.BindText(2, run.inputs);
  s.BindText(3, run.device);
  s.BindText(4, RunModeName(run.mode));
  s.BindText(5, run.command);
  s.BindInt(6, run.iterations);
  s.BindInt(7, run.warmup);
  s.BindInt(8, run.created_unix_s);
}

Status CheckAttribution(const std::string& path, const OpGraph& graph, std::span<const KernelAttribution> attribution) {
  const auto ops = static_cast<int64_t>(graph.ops.size());
  for (const KernelAttribution& a : attribution) {
    if (a.op.value() < 0 || a.op.value() >= ops || a.kernel.value() < 0) {
      return InvalidArgument(path + ": attribution of kernel " + std::to_string(a.kernel.value()) + " to op " +
                             std::to_string(a.op.value()) + " is out of range: the graph has " +
                             std::to_string(ops) + " ops");
    }
  }
  return OkStatus();
}

Status CheckAssignment(const std::string& path, const StreamAssignment& assignment) {
  const auto ops = static_cast<int64_t>(assignment.op_stream.size());
  for (size_t op = 0; op < assignment.op_stream.size(); ++op) {
    const StreamId stream = assignment.op_stream[op];
    if (stream.value() < 0 || stream.value() >= assignment.num_streams) {
      return InvalidArgument(path + ": op " + std::to_string(op) + " is assigned stream " +
                             std::to_string(stream.value()) + ", outside 0.." +
                             std::to_string(assignment.num_streams - 1));
    }
  }
  for (const OpEdge& e : assignment.syncs) {
    if (e.src.value() < 0 || e.src.value() >= ops || e.dst.value() < 0 || e.dst.value() >= ops) {
      return InvalidArgument(path + ": sync edge " + std::to_string(e.src.value()) + " -> " +
                             std::to_string(e.dst.value()) + " names an op outside the assignment's " +
                             std::to_string(ops) + " ops");
    }
  }
  return OkStatus();
}

Status InsertEdges(Database& db, const char* table, RunId run, std::span<const OpEdge> edges) {
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(std::string("INSERT INTO ") + table +
                                                    " (runId, srcOpId, dstOpId, kind) VALUES (?, ?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (const OpEdge& e : edges) {
    ins.BindInt(2, e.src.value());
    ins.BindInt(3, e.dst.value());
    ins.BindInt(4, static_cast<int64_t>(e.kind));
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  return OkStatus();
}

Status InsertOps(Database& db, RunId run, const OpGraph& graph) {
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO ops (runId, opId, name, kind, outputShapes, gpuTimeNs) VALUES (?, ?, ?, ?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (const Op& op : graph.ops) {
    ins.BindInt(2, op.id.value());
    ins.BindText(3, op.name);
    ins.BindText(4, op.kind);
    ins.BindText(5, op.output_shapes);
    ins.BindInt(6, op.gpu_time_ns);
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  return OkStatus();
}

}  // namespace

StatusOr<RunId> InsertRun(Database& db, const RunInfo& run) {
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO runs (model, inputs, device, mode, command, iterations, warmup, createdUnixS) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  BindRunColumns(ins, run);
  NIMBLE_RETURN_IF_ERROR(ins.Run());
  return RunId(sqlite3_last_insert_rowid(db.handle()));
}

Status UpdateRunRow(Database& db, RunId id, const RunInfo& run) {
  NIMBLE_ASSIGN_OR_RETURN(Statement upd, db.Prepare(
      "UPDATE runs SET model = ?, inputs = ?, device = ?, mode = ?, command = ?, iterations = ?, warmup = ?, "
      "createdUnixS = ? WHERE runId = ?"));
  BindRunColumns(upd, run);
  upd.BindInt(9, id.value());
  return upd.Run();
}

Status CheckRunExists(Database& db, RunId id) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare("SELECT 1 FROM runs WHERE runId = ?"));
  q.BindInt(1, id.value());
  NIMBLE_ASSIGN_OR_RETURN(bool found, q.Step());
  if (!found) return NotFound(db.path() + ": no run " + std::to_string(id.value()));
  return OkStatus();
}

StatusOr<int64_t> NextKernelIndex(Database& db, RunId id) {
  NIMBLE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT coalesce(max(id) - (?1 << 32) + 1, 0) FROM kernels "
      "WHERE id >= (?1 << 32) AND id < ((?1 + 1) << 32)"));
  q.BindInt(1, id.value());
  NIMBLE_RETURN_IF_ERROR(q.Step().status());
  return q.ColumnInt(0);
}

Status InsertDevice(Database& db, RunId run, const DeviceInfo& d, const StringTable& strings) {
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO TARGET_INFO_GPU (runId, id, name, computeMajor, computeMinor, smCount, maxThreadsPerSm, "
      "maxBlocksPerSm, maxRegistersPerSm, maxShmemPerSm, maxThreadsPerBlock, totalMemory, clockRateKhz) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins.BindInt(1, run.value());
  ins.BindInt(2, d.id.value());
  ins.BindText(3, strings.Get(d.name));
  const int64_t limits[] = {d.compute_major, d.compute_minor, d.sm_count, d.max_threads_per_sm,
                            d.max_blocks_per_sm, d.max_registers_per_sm, d.max_shared_bytes_per_sm,
                            d.max_threads_per_block, d.global_memory_bytes, d.core_clock_khz};
  for (int i = 0; i < std::ssize(limits); ++i) ins.BindInt(4 + i, limits[i]);
  return ins.Run();
}

Status ReplaceGraph(Database& db, RunId run, const OpGraph& graph, std::span<const KernelAttribution> attribution) {
  if (Status valid = graph.Validate(); !valid.ok()) return valid.WithContext(db.path() + ": invalid op graph");
  NIMBLE_RETURN_IF_ERROR(CheckAttribution(db.path(), graph, attribution));
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  NIMBLE_RETURN_IF_ERROR(DeleteRunRows(db, run, {"ops", "op_edges", "op_kernels"}));
  NIMBLE_RETURN_IF_ERROR(InsertOps(db, run, graph));
  NIMBLE_RETURN_IF_ERROR(InsertEdges(db, "op_edges", run, graph.edges));
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare("INSERT INTO op_kernels (runId, opId, kernelIndex) VALUES (?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (const KernelAttribution& a : attribution) {
    ins.BindInt(2, a.op.value());
    ins.BindInt(3, a.kernel.value());
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  return txn.Commit();
}

Status ReplaceAssignment(Database& db, RunId run, const StreamAssignment& assignment) {
  NIMBLE_RETURN_IF_ERROR(CheckAssignment(db.path(), assignment));
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  NIMBLE_RETURN_IF_ERROR(DeleteRunRows(db, run, {"stream_assignment", "stream_assignment_ops", "stream_assignment_syncs"}));
  NIMBLE_ASSIGN_OR_RETURN(Statement head, db.Prepare("INSERT INTO stream_assignment (runId, numStreams) VALUES (?, ?)"));
  head.BindInt(1, run.value());
  head.BindInt(2, assignment.num_streams);
  NIMBLE_RETURN_IF_ERROR(head.Run());
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO stream_assignment_ops (runId, opId, streamId) VALUES (?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (size_t op = 0; op < assignment.op_stream.size(); ++op) {
    ins.BindInt(2, static_cast<int64_t>(op));
    ins.BindId(3, assignment.op_stream[op]);
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  NIMBLE_RETURN_IF_ERROR(InsertEdges(db, "stream_assignment_syncs", run, assignment.syncs));
  return txn.Commit();
}

Status ReplaceMetrics(Database& db, RunId run, std::span<const Metric> metrics) {
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  NIMBLE_RETURN_IF_ERROR(DeleteRunRows(db, run, {"metrics"}));
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO metrics (runId, name, value, unit, windowIndex) VALUES (?, ?, ?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (const Metric& m : metrics) {
    ins.BindText(2, m.name);
    ins.BindDouble(3, m.value);
    ins.BindText(4, m.unit);
    ins.BindInt(5, m.window);
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  return txn.Commit();
}

Status ReplaceSpeedups(Database& db, RunId run, std::span<const Speedup> speedups) {
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  NIMBLE_RETURN_IF_ERROR(DeleteRunRows(db, run, {"speedups"}));
  NIMBLE_ASSIGN_OR_RETURN(Statement ins, db.Prepare(
      "INSERT INTO speedups (runId, mode, measuredMs, predictedMs, baselineMs) VALUES (?, ?, ?, ?, ?)"));
  ins.BindInt(1, run.value());
  for (const Speedup& s : speedups) {
    ins.BindText(2, RunModeName(s.mode));
    ins.BindDouble(3, s.measured_ms);
    ins.BindDouble(4, s.predicted_ms);
    ins.BindDouble(5, s.baseline_ms);
    NIMBLE_RETURN_IF_ERROR(ins.Run());
  }
  return txn.Commit();
}

Status AddStatValue(Database& db, RunId run, const StatEntry& entry) {
  // The latest severity wins; an empty description keeps the one already stored.
  NIMBLE_ASSIGN_OR_RETURN(Statement upsert, db.Prepare(
      "INSERT INTO stats (runId, name, value, severity, description) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT (runId, name) DO UPDATE SET value = value + excluded.value, severity = excluded.severity, "
      "description = CASE excluded.description WHEN '' THEN description ELSE excluded.description END"));
  upsert.BindInt(1, run.value());
  upsert.BindText(2, entry.name);
  upsert.BindInt(3, entry.value);
  upsert.BindText(4, SeverityName(entry.severity));
  upsert.BindText(5, entry.description);
  return upsert.Run();
}

}  // namespace nimble::store
