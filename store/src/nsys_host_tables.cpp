// The export's host-side tables: CUDA API calls (runtime and driver, both in
// CUPTI_ACTIVITY_KIND_RUNTIME) and NVTX ranges, marks and domain names (NVTX_EVENTS).
#include <climits>

#include "nsys_reader.h"

namespace nimble::store::nsys {
namespace {

constexpr TableInfo kApiCalls{"CUPTI_ACTIVITY_KIND_RUNTIME", "import.no_api_calls",
                              "the export has no CUPTI_ACTIVITY_KIND_RUNTIME table: no CUDA API calls were recorded, "
                              "so no idle gap can be attributed to the host's launches",
                              "import.skipped_api_calls"};
constexpr TableInfo kRanges{"NVTX_EVENTS", "import.no_nvtx",
                            "the export has no NVTX_EVENTS table: no NVTX ranges were recorded, so the run has no "
                            "iterations",
                            "import.skipped_nvtx_ranges"};
constexpr TableInfo kDomains{"NVTX_EVENTS", nullptr, "", "import.skipped_nvtx_domains"};

// NVTX_EVENTS.eventType values (the export's ENUM_NSYS_EVENT_TYPE): what is read here.
constexpr int64_t kNvtxMark = 34;
constexpr int64_t kNvtxPushPopRange = 59;
constexpr int64_t kNvtxStartEndRange = 60;
constexpr int64_t kNvtxDomainCreate = 75;

// The default NVTX domain, which has no name.
constexpr int64_t kDefaultDomain = 0;

// The driver API's functions start with "cu", the runtime's with "cuda"; the export keeps both in one
// table and says which only through the name.
bool IsDriverFunction(const std::string& name) {
  return name.rfind("cu", 0) == 0 && name.rfind("cuda", 0) != 0;
}

}  // namespace

Status NsysReader::ReadApiCalls() {
  NIMBLE_ASSIGN_OR_RETURN(std::optional<ExportTable> t,
                          OpenTable(kApiCalls,
                                    {{"start"}, {"end"}, {"globalTid", true}, {"correlationId"}, {"nameId"},
                                     {"returnValue"}},
                                    "ORDER BY start, rowid"));
  if (!t) return OkStatus();
  have_api_table_ = true;
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    ApiCallRecord a;
    t->Interval(0, 1, a.start_ns, a.end_ns);
    if (!t->IsNull(2)) {
      const int64_t global_tid = t->Int(2, INT64_MIN, INT64_MAX);
      a.thread = ThreadId(ThreadOfGlobalId(global_tid));
      a.process = static_cast<int32_t>(ProcessOfGlobalId(global_tid));
    }
    if (!t->IsNull(3)) a.correlation = CorrelationId(t->Int(3, 0, INT64_MAX));
    a.return_value = static_cast<int32_t>(static_cast<uint32_t>(t->Int(5, INT32_MIN, UINT32_MAX)));
    if (t->row_ok()) {
      NIMBLE_ASSIGN_OR_RETURN(a.name, StringAt(*t, 4, false));
    }
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    // callback_id stays 0: the export does not carry CUPTI's callback ids.
    a.kind = IsDriverFunction(out_.trace.strings.Get(a.name)) ? ApiKind::kDriver : ApiKind::kRuntime;
    if (a.correlation.valid()) api_correlations_.insert(a.correlation.value());
    out_.trace.api_calls.push_back(a);
  }
  Finish(kApiCalls, *t);
  return OkStatus();
}

Status NsysReader::ReadDomains() {
  NIMBLE_ASSIGN_OR_RETURN(
      std::optional<ExportTable> t,
      OpenTable(kDomains, {{"eventType"}, {"globalTid", true}, {"domainId", true}, {"text", true}},
                "WHERE eventType = " + std::to_string(kNvtxDomainCreate) + " ORDER BY rowid"));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    // A domain's id is its process's own: the same id names other domains in other processes.
    const int64_t process = t->IsNull(1) ? -1 : ProcessOfGlobalId(t->Int(1, INT64_MIN, INT64_MAX));
    const int64_t domain = t->Int(2, 0, INT64_MAX);
    const std::optional<std::string> name = t->Text(3);
    if (t->row_ok() && !name) t->Fail("text is NULL");
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    domains_.emplace(std::make_pair(process, domain), out_.trace.strings.Intern(*name));
  }
  Finish(kDomains, *t);
  return OkStatus();
}

Status NsysReader::ReadRanges() {
  NIMBLE_ASSIGN_OR_RETURN(
      std::optional<ExportTable> t,
      OpenTable(kRanges,
                {{"start"}, {"end"}, {"eventType"}, {"text", true}, {"textId", true}, {"globalTid", true},
                 {"domainId", true}},
                "WHERE eventType IN (" + std::to_string(kNvtxMark) + ", " + std::to_string(kNvtxPushPopRange) + ", " +
                    std::to_string(kNvtxStartEndRange) + ") ORDER BY start, rowid"));
  if (!t) return OkStatus();
  while (true) {
    NIMBLE_ASSIGN_OR_RETURN(bool has_row, t->Next());
    if (!has_row) break;
    NvtxRange r;
    r.start_ns = t->Int(0, INT64_MIN, INT64_MAX);
    if (t->Int(2, INT64_MIN, INT64_MAX) == kNvtxMark) {
      r.end_ns = t->IntOr(1, r.start_ns, INT64_MIN, INT64_MAX);  // a mark is an instant
    } else if (t->IsNull(1)) {
      t->Fail("end is NULL (a range that never ended)");
    } else {
      r.end_ns = t->Int(1, INT64_MIN, INT64_MAX);
    }
    if (t->row_ok() && r.end_ns < r.start_ns) t->Fail("end is before start");
    int64_t process = -1;
    if (!t->IsNull(5)) {
      const int64_t global_tid = t->Int(5, INT64_MIN, INT64_MAX);
      r.thread = ThreadId(ThreadOfGlobalId(global_tid));
      process = ProcessOfGlobalId(global_tid);
    }
    const int64_t domain = t->IntOr(6, kDefaultDomain, 0, INT64_MAX);
    const std::optional<std::string> text = t->Text(3);
    if (t->row_ok()) {
      // An explicit text wins; a registered string is in StringIds; a range may have neither.
      if (text) {
        r.text = out_.trace.strings.Intern(*text);
      } else {
        NIMBLE_ASSIGN_OR_RETURN(r.text, StringAt(*t, 4, true));
      }
    }
    if (!t->row_ok()) {
      t->Skip();
      continue;
    }
    if (domain != kDefaultDomain) {
      if (const auto it = domains_.find({process, domain}); it != domains_.end()) r.domain = it->second;
    }
    out_.trace.ranges.push_back(r);
  }
  Finish(kRanges, *t);
  return OkStatus();
}

}  // namespace nimble::store::nsys
