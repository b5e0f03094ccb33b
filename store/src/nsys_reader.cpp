#include "nsys_reader.h"

#include <algorithm>
#include <climits>

namespace nimble::store::nsys {
namespace {

constexpr TableInfo kDevices{"TARGET_INFO_GPU", "import.no_device_properties",
                             "the export has no TARGET_INFO_GPU table: no device properties, so how much of the GPU "
                             "a kernel occupies cannot be estimated",
                             "import.skipped_devices"};

// Columns of TARGET_INFO_GPU that the occupancy estimate needs; reported when NULL or absent.
constexpr int kFirstLimitColumn = 3;
constexpr int kLastLimitColumn = 11;

// The numbers of a TARGET_INFO_GPU row (columns as ReadDevices selects them); its name is the caller's.
DeviceInfo DeviceAt(ExportTable& t) {
  DeviceInfo d;
  const int64_t gpu_id = t.Int(0, 0, INT32_MAX);
  // The CUDA ordinal is what the activity tables' deviceId holds; older exports lack cuDevice.
  d.id = DeviceId(static_cast<int32_t>(t.IsNull(1) ? gpu_id : t.Int(1, 0, INT32_MAX)));
  auto limit = [&](int col) { return static_cast<int32_t>(t.IntOr(col, 0, 0, INT32_MAX)); };
  d.compute_major = limit(3);
  d.compute_minor = limit(4);
  d.sm_count = limit(5);
  const int64_t threads_per_sm = int64_t{limit(6)} * limit(7);
  if (threads_per_sm > INT32_MAX) t.Fail("maxWarpsPerSm * threadsPerWarp is out of range");
  d.max_threads_per_sm = static_cast<int32_t>(std::min<int64_t>(threads_per_sm, INT32_MAX));
  d.max_blocks_per_sm = limit(8);
  d.max_registers_per_sm = limit(9);
  d.max_shared_bytes_per_sm = limit(10);
  d.max_threads_per_block = limit(11);
  d.global_memory_bytes = t.IntOr(12, 0, 0, INT64_MAX);
  d.core_clock_khz = static_cast<int32_t>(t.IntOr(13, 0, 0, int64_t{INT32_MAX} * 1000) / 1000);  // Hz in nsys
  return d;
}

// "smCount, maxBlocksPerSm": the occupancy limits the row lacks.
std::string LimitsLacking(const ExportTable& t) {
  std::string lacks;
  for (int col = kFirstLimitColumn; col <= kLastLimitColumn; ++col) {
    if (t.IsNull(col)) lacks += (lacks.empty() ? "" : ", ") + t.column_name(col);
  }
  return lacks;
}

}  // namespace

StatusOr<ImportedTrace> NsysReader::Read() {
  NIMBLE_ASSIGN_OR_RETURN(string_by_id_, db_.Prepare("SELECT value, typeof(value) FROM StringIds WHERE id = ?1"));
  out_.source_format = "nsys-sqlite";
  out_.run.model = db_.path();
  out_.run.mode = RunMode::kProgram;
  const int64_t version_code = int64_t{version_.major} * 1'000'000 + int64_t{version_.minor} * 1'000 +
                               std::min(version_.micro, 999);
  out_.stats.push_back(StatEntry{"import.nsys_schema_version", version_code, Severity::kInfo,
                                 "Nsight Systems export schema " + version_.text +
                                     (version_.product_version.empty() ? "" : " (nsys " + version_.product_version + ")")});
  NIMBLE_RETURN_IF_ERROR(ReadSessionStart());
  NIMBLE_RETURN_IF_ERROR(ReadDevices());
  NIMBLE_RETURN_IF_ERROR(ReadKernels());
  NIMBLE_RETURN_IF_ERROR(ReadMemcpys());
  NIMBLE_RETURN_IF_ERROR(ReadMemsets());
  NIMBLE_RETURN_IF_ERROR(ReadSyncs());
  NIMBLE_RETURN_IF_ERROR(ReadGraphLaunches());
  NIMBLE_RETURN_IF_ERROR(ReadApiCalls());
  NIMBLE_RETURN_IF_ERROR(ReadDomains());
  NIMBLE_RETURN_IF_ERROR(ReadRanges());
  SummarizeLinks();
  return std::move(out_);
}

void NsysReader::Warn(std::string name, int64_t value, std::string description) {
  out_.stats.push_back(StatEntry{std::move(name), value, Severity::kWarning, std::move(description)});
}

StatusOr<std::optional<ExportTable>> NsysReader::OpenTable(const TableInfo& info, std::vector<Column> columns,
                                                           std::string_view tail) {
  if (!db_.TableExists(info.table)) {
    if (info.missing_stat != nullptr) Warn(info.missing_stat, 1, info.missing_why);
    return std::optional<ExportTable>();
  }
  NIMBLE_ASSIGN_OR_RETURN(ExportTable table, ExportTable::Open(db_, info.table, std::move(columns), tail));
  return std::optional<ExportTable>(std::move(table));
}

void NsysReader::Finish(const TableInfo& info, const ExportTable& table) {
  if (table.rows_skipped() > 0) {
    Warn(info.skipped_stat, table.rows_skipped(),
         std::to_string(table.rows_skipped()) + " rows of " + table.name() + " skipped: " + table.SkipReasons());
  }
  for (const auto& [value, rows] : table.unknown_values()) unknown_values_[table.name() + "." + value] += rows;
}

StatusOr<StringId> NsysReader::StringAt(ExportTable& row, int col, bool nullable) {
  if (row.IsNull(col)) {
    if (!nullable) row.Fail(row.column_name(col) + " is NULL");
    return StringId();
  }
  const int64_t db_id = row.Int(col, INT64_MIN, INT64_MAX);
  if (!row.row_ok()) return StringId();
  if (const auto it = strings_.find(db_id); it != strings_.end()) return it->second;
  string_by_id_.BindInt(1, db_id);
  NIMBLE_ASSIGN_OR_RETURN(bool found, string_by_id_.Step());
  if (!found) {
    row.Fail(row.column_name(col) + " names a string id that StringIds lacks");
    return StringId();
  }
  const std::string type = string_by_id_.ColumnText(1);
  const std::string value = string_by_id_.ColumnText(0);
  string_by_id_.Reset();
  if (type != "text") {
    row.Fail(row.column_name(col) + " names a StringIds row whose value is not text");
    return StringId();
  }
  const StringId id = out_.trace.strings.Intern(value);
  strings_.emplace(db_id, id);
  return id;
}

Status NsysReader::ReadSessionStart() {
  if (!db_.TableExists("TARGET_INFO_SESSION_START_TIME")) return OkStatus();
  NIMBLE_ASSIGN_OR_RETURN(ExportTable t, ExportTable::Open(db_, "TARGET_INFO_SESSION_START_TIME",
                                                           {{"utcEpochNs", true}}, "LIMIT 1"));
  NIMBLE_ASSIGN_OR_RETURN(bool has_row, t.Next());
  if (has_row) {
    const int64_t epoch_ns = t.IntOr(0, 0, 0, INT64_MAX);
    if (t.row_ok()) out_.run.created_unix_s = epoch_ns / 1'000'000'000;
  }
  return OkStatus();
}

Status NsysReader::ReadDevices() {
  NIMBLE_ASSIGN_OR_RETURN(
      std::optional<ExportTable> t,
      OpenTable(kDevices,
                {{"id"}, {"cuDevice", true}, {"name", true}, {"computeMajor", true}, {"computeMinor", true},
                 {"smCount", true}, {"maxWarpsPerSm", true}, {"threadsPerWarp", true}, {"maxBlocksPerSm", true},
                 {"maxRegistersPerSm", true}, {"maxShmemPerSm", true}, {"maxThreadsPerBlock", true},
                 {"totalMemory", true}, {"clockRate", true}},
                "ORDER BY rowid"));
  if (!t) return OkStatus();
  std::string incomplete;
  int64_t incomplete_devices = 0;
  std::set<int32_t> seen;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    DeviceInfo d = DeviceAt(*t);
    const std::optional<std::string> name = t->Text(2);
    if (t->row_ok() && seen.count(d.id.value()) != 0) t->Fail("a second row for one device");
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    seen.insert(d.id.value());
    if (name) d.name = out_.trace.strings.Intern(*name);
    if (const std::string lacks = LimitsLacking(*t); !lacks.empty()) {
      ++incomplete_devices;
      incomplete += (incomplete.empty() ? "" : "; ") + ("device " + std::to_string(d.id.value()) + ": " + lacks);
    }
    out_.trace.devices.push_back(d);
  }
  Finish(kDevices, *t);
  std::stable_sort(out_.trace.devices.begin(), out_.trace.devices.end(),
                   [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });
  if (out_.trace.devices.empty()) {
    Warn(kDevices.missing_stat, 1, "TARGET_INFO_GPU has no usable row: no device properties, so how much of the "
                                   "GPU a kernel occupies cannot be estimated");
  }
  if (incomplete_devices > 0) {
    Warn("import.incomplete_device_properties", incomplete_devices,
         "device limits the export lacks, read as 0 (occupancy estimates need them): " + incomplete);
  }
  std::set<std::string> named;
  for (const DeviceInfo& d : out_.trace.devices) {
    const std::string& name = out_.trace.strings.Get(d.name);
    if (name.empty() || !named.insert(name).second) continue;
    out_.run.device += (out_.run.device.empty() ? "" : ", ") + name;
  }
  return OkStatus();
}

void NsysReader::SummarizeLinks() {
  if (have_api_table_) {
    int64_t unlinked = 0;
    for (const KernelRecord& k : out_.trace.kernels) {
      if (!k.correlation.valid() || api_correlations_.count(k.correlation.value()) == 0) ++unlinked;
    }
    if (unlinked > 0) {
      Warn("import.unlinked_kernels", unlinked,
           std::to_string(unlinked) + " of " + std::to_string(out_.trace.kernels.size()) +
               " kernels have no CUDA API call with their correlation id, so their launch cannot be timed");
    }
  }
  if (gpu_processes_.size() > 1) {
    std::string pids;
    for (int64_t pid : gpu_processes_) pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
    Warn("import.multiple_processes", static_cast<int64_t>(gpu_processes_.size()),
         "GPU work of several processes (" + pids + ") in one run: correlation ids are per process, so a kernel "
         "may be joined to another process's API call");
  }
  if (!unknown_values_.empty()) {
    int64_t rows = 0;
    std::string which;
    for (const auto& [value, count] : unknown_values_) {
      rows += count;
      if (which.size() < 400) which += (which.empty() ? "" : ", ") + value + " (" + std::to_string(count) + ")";
    }
    Warn("import.unknown_enum_values", rows, "enum values this build does not know, read as unknown: " + which);
  }
}

}  // namespace nimble::store::nsys
