#include "nimble/store/run_writer.h"

#include "digests.h"

#include <algorithm>
#include <array>
#include <optional>
#include <thread>
#include <vector>

#include "activity_inserter.h"
#include "db_file.h"
#include "launch_config_cache.h"
#include "nimble/store/schema.h"
#include "open_database.h"
#include "results_writer.h"
#include "string_cache.h"

namespace nimble::store {
namespace {

// The StringIds each record type carries, so that one template checks and notes them all.
std::array<StringId, 2> StringsOf(const KernelRecord& r) { return {r.name, r.short_name}; }
std::array<StringId, 1> StringsOf(const ApiCallRecord& r) { return {r.name}; }
std::array<StringId, 2> StringsOf(const NvtxRange& r) { return {r.text, r.domain}; }
std::array<StringId, 1> StringsOf(const OverheadRecord& r) { return {r.kind}; }
template <typename Record>
std::array<StringId, 0> StringsOf(const Record&) { return {}; }

}  // namespace

class RunWriter::Impl {
 public:
  Impl(std::string path, WriterOptions options) : path_(std::move(path)), options_(options) {}
  ~Impl();

  Status StartNewRun(const RunInfo& run);
  Status OpenExistingRun(RunId run);
  // Reopens the file closed by Commit(); an error after a failed Commit().
  Status EnsureOpen();

  // Checks every record's strings first, so that a bad id rejects the whole call; then buffers
  // the records, flushing whenever the buffer reaches batch_records.
  template <typename Record>
  Status Append(std::span<const Record> records, const StringTable* strings, std::vector<Record>& dest,
                const char* what);
  Status Flush();
  Status Commit();

  Database& db() { return *db_; }
  ActivityBuffer& buffer() { return buffer_; }
  RunId run() const { return run_; }
  const std::string& path() const { return path_; }
  int64_t records_written() const { return records_written_; }

 private:
  Status Attach(std::unique_ptr<Database> db);
  void Detach();
  Status WriteBuffer();
  Status CloseDatabase();
  Status MoveIntoPlace();

  std::string path_;                 // the final path
  bool building_new_file_ = false;   // writing PartialPath(path_) until Commit() renames it
  bool committed_ = false;           // Commit() closed the file; the next write reopens it
  WriterOptions options_;
  std::unique_ptr<Database> db_;     // declared first, so destroyed after the statements below
  std::optional<ActivityInserter> inserter_;
  StringCache strings_;
  LaunchConfigCache launch_configs_;
  ActivityBuffer buffer_;
  RunId run_;
  int64_t next_kernel_index_ = 0;
  int64_t records_written_ = 0;
};

RunWriter::Impl::~Impl() {
  Detach();
  if (db_ != nullptr && building_new_file_) {
    // The file is about to be deleted: checkpointing its log on close would be wasted work.
    sqlite3_db_config(db_->handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  }
  if (db_ != nullptr) (void)db_->Close();
  db_.reset();
  if (building_new_file_) (void)RemoveDatabaseFiles(PartialPath(path_));
}

Status RunWriter::Impl::Attach(std::unique_ptr<Database> db) {
  db_ = std::move(db);
  NIMBLE_ASSIGN_OR_RETURN(ActivityInserter inserter, ActivityInserter::Prepare(*db_));
  inserter_.emplace(std::move(inserter));
  NIMBLE_RETURN_IF_ERROR(launch_configs_.Attach(*db_));
  return strings_.Attach(*db_);
}

void RunWriter::Impl::Detach() {
  inserter_.reset();
  launch_configs_.Detach();
  strings_.Detach();
}

Status RunWriter::Impl::StartNewRun(const RunInfo& run) {
  std::unique_ptr<Database> db;
  if (PathExists(path_)) {
    NIMBLE_ASSIGN_OR_RETURN(db, OpenForWriting(path_));
  } else {
    NIMBLE_RETURN_IF_ERROR(CheckParentDirectory(path_));
    building_new_file_ = true;
    const std::string partial = PartialPath(path_);
    // A leftover from a session that was killed: nothing else can be using it for this path.
    NIMBLE_RETURN_IF_ERROR(RemoveDatabaseFiles(partial));
    auto created = CreateNewDatabase(partial, kSchemaVersion);
    if (!created.ok()) return created.status().WithContext(path_ + ": cannot create the run database");
    db = std::move(created).value();
    // The partial file only grows, and SQLite journals no page beyond a file's size at the start of
    // a transaction: in rollback-journal mode each batch's pages are written once, where WAL writes
    // them to the log and again at each checkpoint (bench/results/store_writer.md). A failed batch
    // still rolls back, from the journal. No batch needs to be durable on its own: a partial file
    // that a crash interrupts is never used, so nothing is synced until MoveIntoPlace, which syncs
    // the whole file once and returns it to WAL, the mode readers and later writers expect.
    NIMBLE_RETURN_IF_ERROR(db->Exec("PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = OFF"));
  }
  NIMBLE_RETURN_IF_ERROR(Attach(std::move(db)));
  NIMBLE_ASSIGN_OR_RETURN(run_, InsertRun(*db_, run));
  return OkStatus();
}

Status RunWriter::Impl::OpenExistingRun(RunId run) {
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenForWriting(path_));
  NIMBLE_RETURN_IF_ERROR(CheckRunExists(*db, run));
  NIMBLE_RETURN_IF_ERROR(DropDigests(*db, run));
  run_ = run;
  NIMBLE_ASSIGN_OR_RETURN(next_kernel_index_, NextKernelIndex(*db, run));
  return Attach(std::move(db));
}

Status RunWriter::Impl::EnsureOpen() {
  if (db_ != nullptr) return OkStatus();
  if (!committed_) return FailedPrecondition(path_ + ": the writer is closed after a failed Commit()");
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenForWriting(path_));
  NIMBLE_RETURN_IF_ERROR(DropDigests(*db, run_));  // sealed again by the next Commit()
  committed_ = false;
  return Attach(std::move(db));
}

template <typename Record>
Status RunWriter::Impl::Append(std::span<const Record> records, const StringTable* strings,
                               std::vector<Record>& dest, const char* what) {
  NIMBLE_RETURN_IF_ERROR(EnsureOpen());
  if (strings != nullptr) {
    for (size_t i = 0; i < records.size(); ++i) {
      for (StringId id : StringsOf(records[i])) {
        Status valid = StringCache::Check(id, *strings, what);
        if (!valid.ok()) return valid.WithContext(path_ + ": record " + std::to_string(i) + " of the call");
      }
    }
  }
  size_t next = 0;
  while (next < records.size()) {
    const auto buffered = static_cast<int64_t>(buffer_.size());
    const auto room = static_cast<size_t>(std::max<int64_t>(1, options_.batch_records - buffered));
    const size_t end = std::min(records.size(), next + room);
    for (size_t i = next; i < end; ++i) {
      if (strings != nullptr) {
        for (StringId id : StringsOf(records[i])) strings_.Note(id, *strings);
      }
      dest.push_back(records[i]);
    }
    next = end;
    if (static_cast<int64_t>(buffer_.size()) >= options_.batch_records) NIMBLE_RETURN_IF_ERROR(Flush());
  }
  return OkStatus();
}

Status RunWriter::Impl::WriteBuffer() {
  if (next_kernel_index_ + static_cast<int64_t>(buffer_.kernels.size()) > kMaxKernelsPerRun) {
    return OutOfRange(path_ + ": a run holds at most " + std::to_string(kMaxKernelsPerRun) + " kernels");
  }
  NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_));
  NIMBLE_RETURN_IF_ERROR(strings_.ResolvePending());
  NIMBLE_RETURN_IF_ERROR(inserter_->Insert(buffer_, run_, next_kernel_index_, strings_, launch_configs_));
  return txn.Commit();
}

Status RunWriter::Impl::Flush() {
  const auto records = static_cast<int64_t>(buffer_.size());
  if (records == 0) return OkStatus();
  NIMBLE_RETURN_IF_ERROR(EnsureOpen());
  const auto kernels = static_cast<int64_t>(buffer_.kernels.size());
  Status status = WriteBuffer();
  buffer_.clear();
  if (!status.ok()) {
    strings_.Rollback();
    launch_configs_.Rollback();
    return {status.code(), status.message() + "; the batch of " + std::to_string(records) +
                               " records was rolled back, earlier batches are kept"};
  }
  strings_.Commit();
  launch_configs_.Commit();
  records_written_ += records;
  next_kernel_index_ += kernels;
  return OkStatus();
}

// Closing the last connection makes SQLite checkpoint the WAL into the file (with a sync, as
// synchronous=NORMAL does at checkpoints) and remove the -wal and -shm files.
Status RunWriter::Impl::CloseDatabase() {
  Detach();
  Status status = db_->Close();
  db_.reset();
  return status;
}

// Closes the finished partial file and renames it to the final path.
Status RunWriter::Impl::MoveIntoPlace() {
  const std::string partial = PartialPath(path_);
  NIMBLE_RETURN_IF_ERROR(db_->Exec("PRAGMA synchronous = NORMAL"));
  NIMBLE_RETURN_IF_ERROR(SwitchToWal(*db_));
  NIMBLE_RETURN_IF_ERROR(CloseDatabase());
  NIMBLE_RETURN_IF_ERROR(CheckNoCompanionFiles(partial));
  NIMBLE_RETURN_IF_ERROR(SyncFile(partial));
  if (PathExists(path_)) {
    return AlreadyExists(path_ + ": a file appeared at this path while the run was being written; "
                         "the run is not committed");
  }
  NIMBLE_RETURN_IF_ERROR(RenameDurably(partial, path_));
  building_new_file_ = false;
  return OkStatus();
}

// Leaves the database complete and closed, so that nothing of the writer's stays beside it; a later
// write reopens it in place.
Status RunWriter::Impl::Commit() {
  NIMBLE_RETURN_IF_ERROR(Flush());
  NIMBLE_RETURN_IF_ERROR(EnsureOpen());
  {
    // A new database's partial file is this writer's alone and its rows are committed: its digests are
    // read on several connections at once, before the transaction that stores them (the import of 2.2 M
    // records wrote in 0.5-0.75 s less on a 16-core host: bench/results/import.md). Eight connections
    // cover the tables of an import several times over. Should that fail, the one-connection digest
    // inside the transaction runs instead and reports any error of the file itself.
    const int threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
    std::optional<std::vector<TableDigest>> parallel;
    if (building_new_file_ && threads > 1) {
      auto computed = ComputeDigestsInParallel(*db_, run_, threads);
      if (computed.ok()) parallel = std::move(computed).value();
    }
    NIMBLE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_));
    const Status digests = parallel.has_value() ? StoreDigests(*db_, run_, *parallel) : WriteDigests(*db_, run_);
    NIMBLE_RETURN_IF_ERROR(digests.WithContext("writing the run's digests"));
    NIMBLE_RETURN_IF_ERROR(txn.Commit());
  }
  NIMBLE_RETURN_IF_ERROR(building_new_file_ ? MoveIntoPlace() : CloseDatabase());
  committed_ = true;
  return OkStatus();
}

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunWriter::~RunWriter() = default;

StatusOr<std::unique_ptr<RunWriter>> RunWriter::Create(const std::string& path, RunInfo run, WriterOptions options) {
  if (options.batch_records < 1) return InvalidArgument(path + ": batch_records must be at least 1");
  auto impl = std::make_unique<Impl>(path, options);
  NIMBLE_RETURN_IF_ERROR(impl->StartNewRun(run));
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
}

StatusOr<std::unique_ptr<RunWriter>> RunWriter::OpenRun(const std::string& path, RunId run, WriterOptions options) {
  if (options.batch_records < 1) return InvalidArgument(path + ": batch_records must be at least 1");
  auto impl = std::make_unique<Impl>(path, options);
  NIMBLE_RETURN_IF_ERROR(impl->OpenExistingRun(run));
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
}

Status RunWriter::AppendKernels(std::span<const KernelRecord> records, const StringTable& strings) {
  return impl_->Append(records, &strings, impl_->buffer().kernels, "kernel");
}
Status RunWriter::AppendMemcpys(std::span<const MemcpyRecord> records) {
  return impl_->Append(records, nullptr, impl_->buffer().memcpys, "memcpy");
}
Status RunWriter::AppendMemsets(std::span<const MemsetRecord> records) {
  return impl_->Append(records, nullptr, impl_->buffer().memsets, "memset");
}
Status RunWriter::AppendSyncs(std::span<const SyncRecord> records) {
  return impl_->Append(records, nullptr, impl_->buffer().syncs, "sync");
}
Status RunWriter::AppendApiCalls(std::span<const ApiCallRecord> records, const StringTable& strings) {
  return impl_->Append(records, &strings, impl_->buffer().api_calls, "API call");
}
Status RunWriter::AppendRanges(std::span<const NvtxRange> records, const StringTable& strings) {
  return impl_->Append(records, &strings, impl_->buffer().ranges, "NVTX range");
}
Status RunWriter::AppendExternalCorrelations(std::span<const ExternalCorrelation> records) {
  return impl_->Append(records, nullptr, impl_->buffer().external_correlations, "external correlation");
}
Status RunWriter::AppendOverheads(std::span<const OverheadRecord> records, const StringTable& strings) {
  return impl_->Append(records, &strings, impl_->buffer().overheads, "overhead");
}

Status RunWriter::AppendGraphLaunches(std::span<const GraphLaunchRecord> records) {
  return impl_->Append(records, nullptr, impl_->buffer().graph_launches, "graph launch");
}

Status RunWriter::AddDevice(const DeviceInfo& device, const StringTable& strings) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  NIMBLE_RETURN_IF_ERROR(StringCache::Check(device.name, strings, "device").WithContext(impl_->path()));
  return InsertDevice(impl_->db(), impl_->run(), device, strings);
}

Status RunWriter::AppendTrace(const Trace& trace) {
  for (const DeviceInfo& device : trace.devices) NIMBLE_RETURN_IF_ERROR(AddDevice(device, trace.strings));
  NIMBLE_RETURN_IF_ERROR(AppendKernels(trace.kernels, trace.strings));
  NIMBLE_RETURN_IF_ERROR(AppendMemcpys(trace.memcpys));
  NIMBLE_RETURN_IF_ERROR(AppendMemsets(trace.memsets));
  NIMBLE_RETURN_IF_ERROR(AppendSyncs(trace.syncs));
  NIMBLE_RETURN_IF_ERROR(AppendApiCalls(trace.api_calls, trace.strings));
  NIMBLE_RETURN_IF_ERROR(AppendRanges(trace.ranges, trace.strings));
  NIMBLE_RETURN_IF_ERROR(AppendExternalCorrelations(trace.external_correlations));
  NIMBLE_RETURN_IF_ERROR(AppendOverheads(trace.overheads, trace.strings));
  return AppendGraphLaunches(trace.graph_launches);
}

Status RunWriter::WriteGraph(const OpGraph& graph, std::span<const KernelAttribution> attribution) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  return ReplaceGraph(impl_->db(), impl_->run(), graph, attribution);
}

Status RunWriter::WriteAssignment(const StreamAssignment& assignment) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  return ReplaceAssignment(impl_->db(), impl_->run(), assignment);
}

Status RunWriter::WriteMetrics(std::span<const Metric> metrics) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  return ReplaceMetrics(impl_->db(), impl_->run(), metrics);
}

Status RunWriter::WriteSpeedups(std::span<const Speedup> speedups) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  return ReplaceSpeedups(impl_->db(), impl_->run(), speedups);
}

Status RunWriter::AddStat(const StatEntry& entry) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  return AddStatValue(impl_->db(), impl_->run(), entry);
}

Status RunWriter::UpdateRun(const RunInfo& run) {
  NIMBLE_RETURN_IF_ERROR(impl_->EnsureOpen());
  if (run.id.valid() && run.id != impl_->run()) {
    return InvalidArgument(impl_->path() + ": UpdateRun got run " + std::to_string(run.id.value()) +
                           " but this writer holds run " + std::to_string(impl_->run().value()));
  }
  return UpdateRunRow(impl_->db(), impl_->run(), run);
}

Status RunWriter::Flush() { return impl_->Flush(); }
Status RunWriter::Commit() { return impl_->Commit(); }

RunId RunWriter::run_id() const { return impl_->run(); }
const std::string& RunWriter::path() const { return impl_->path(); }
int64_t RunWriter::records_written() const { return impl_->records_written(); }

}  // namespace nimble::store
