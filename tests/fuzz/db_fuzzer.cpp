#include "db_fuzzer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "fuzz_child.h"
#include "nimble/workflow/report.h"
#include "nimble/workflow/report_json.h"

namespace nimble::fuzz {
namespace {

namespace fs = std::filesystem;

enum class Outcome { kError, kReport, kCrash, kHang };

// The report of `db` in a child process, its JSON written to `json`: a crash or hang there is counted,
// not suffered.
Outcome ReportInChild(const std::string& db, const std::string& json, int64_t timeout_ms) {
  fs::remove(json);
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto opened = workflow::OpenForReport(db, /*store=*/false);
    if (!opened.ok()) ::_exit(1);
    auto result = workflow::Report(*opened->db, workflow::ReportOptions{.store = false});
    if (!result.ok()) ::_exit(1);
    WriteAll(json, workflow::ReportResultToJson(*result).dump(1));
    ::_exit(0);
  }
  switch (WaitForChild(pid, timeout_ms)) {
    case ChildEnd::kExit0: return Outcome::kReport;
    case ChildEnd::kExit1: return Outcome::kError;
    case ChildEnd::kHang: return Outcome::kHang;
    case ChildEnd::kCrash: break;
  }
  return Outcome::kCrash;
}

// The page size from the SQLite header (bytes 16-17, big-endian; 1 means 65536).
size_t PageSize(const std::string& bytes) {
  if (bytes.size() < 100) return 4096;
  const size_t v = static_cast<size_t>(static_cast<unsigned char>(bytes[16])) << 8 | static_cast<unsigned char>(bytes[17]);
  return v == 1 ? 65536 : (v >= 512 ? v : 4096);
}

// Damages `bytes` in one of four ways; returns what it did.
std::string Mutate(std::string& bytes, std::mt19937_64& rng) {
  const size_t page = PageSize(bytes);
  const size_t pages = std::max<size_t>(1, bytes.size() / page);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  switch (rng() % 4) {
    case 0: {
      const size_t p = pick(pages), count = 1 + pick(32);
      for (size_t i = 0; i < count; ++i) bytes[std::min(bytes.size() - 1, p * page + pick(page))] = static_cast<char>(rng());
      return std::to_string(count) + " random bytes in page " + std::to_string(p + 1);
    }
    case 1: {
      const size_t p = pick(pages);
      std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(p * page), std::min(page, bytes.size() - p * page), '\0');
      return "page " + std::to_string(p + 1) + " zeroed";
    }
    case 2: {
      const size_t at = pick(bytes.size());
      bytes[at] = static_cast<char>(bytes[at] ^ (1 << pick(8)));
      return "one bit flipped at byte " + std::to_string(at);
    }
    default: {
      const size_t size = pick(bytes.size());
      bytes.resize(size);
      return "truncated to " + std::to_string(size) + " bytes";
    }
  }
}

}  // namespace

FuzzCounts FuzzReports(const FuzzOptions& options) {
  FuzzCounts counts;
  fs::create_directories(options.work_dir);
  const std::string db = (fs::path(options.work_dir) / "mutant.db").string();
  const std::string json = (fs::path(options.work_dir) / "report.json").string();
  const std::string pristine = ReadAll(options.seed_db);
  WriteAll(db, pristine);
  if (ReportInChild(db, json, options.timeout_ms) != Outcome::kReport) {
    counts.examples.push_back("the seed database itself does not report: " + options.seed_db);
    return counts;
  }
  const std::string expected = ReadAll(json);
  std::mt19937_64 rng(options.seed);
  for (int64_t i = 0; i < options.mutants; ++i) {
    std::string bytes = pristine;
    const std::string what = Mutate(bytes, rng);
    for (const char* side : {"-wal", "-shm", "-journal"}) fs::remove(db + side);
    WriteAll(db, bytes);
    if (i == options.keep_mutant) WriteAll((fs::path(options.work_dir) / "kept.db").string(), bytes);
    ++counts.tried;
    const Outcome outcome = ReportInChild(db, json, options.timeout_ms);
    std::string bad;
    switch (outcome) {
      case Outcome::kError: ++counts.errors; break;
      case Outcome::kReport:
        if (ReadAll(json) == expected) {
          ++counts.same;
        } else {
          ++counts.wrong;
          bad = "wrong report";
        }
        break;
      case Outcome::kCrash: ++counts.crashes, bad = "crash"; break;
      case Outcome::kHang: ++counts.hangs, bad = "hang"; break;
    }
    if (!bad.empty() && counts.examples.size() < 10) {
      counts.examples.push_back("mutant " + std::to_string(i) + " (" + what + "): " + bad);
    }
  }
  return counts;
}

}  // namespace nimble::fuzz
