// Import throughput and memory on a large synthetic torch.profiler trace: the events of a Kineto fixture
// replicated with shifted timestamps and correlation / External ids until the file reaches the size asked
// for (written once into a folder, then reused), then, each in a child process of its own so that peak
// memory is its alone, (1) the streaming read into records and (2) the whole `import` (read + the run
// database written and committed). Prints events/s (wall and per CPU-second: the fair figure on a shared
// machine) and peak RSS (getrusage) for a results table.
//   nimble_import_bench [MEGABYTES=600] [FOLDER=/tmp] [FIXTURE] [THREADS=0 (one per core)]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kineto_reader.h"
#include "micros_text.h"
#include "nimble/workflow/import.h"

namespace {

namespace fs = std::filesystem;

std::string Micros(int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
  return buf;
}

// One fixture event with its times in ns and the text of everything else, ready to be shifted.
struct Template {
  nlohmann::json event;  // without ts and dur
  int64_t ts_ns = 0, dur_ns = -1;
  bool has_ts = false;
};

// Writes `megabytes` of trace built from `fixture`'s events; returns the number of events.
int64_t WriteTrace(const std::string& fixture, const std::string& out, int64_t megabytes) {
  std::ifstream in(fixture);
  nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<Template> templates;
  int64_t first = INT64_MAX, last = 0;
  for (nlohmann::json& e : doc["traceEvents"]) {
    Template t;
    if (e.contains("ts")) {
      // The fixture's text has exact sub-µs digits; a double rounds them only below a nanosecond here.
      t.ts_ns = nimble::workflow::MicrosTextToNs(e["ts"].dump()).value_or(0);
      t.has_ts = true;
      e.erase("ts");
    }
    if (e.contains("dur")) {
      t.dur_ns = nimble::workflow::MicrosTextToNs(e["dur"].dump()).value_or(0);
      e.erase("dur");
    }
    if (t.has_ts) first = std::min(first, t.ts_ns), last = std::max(last, t.ts_ns + std::max<int64_t>(t.dur_ns, 0));
    t.event = e;
    templates.push_back(std::move(t));
  }
  doc.erase("traceEvents");
  std::string head = doc.dump(2);
  head.pop_back();  // the closing brace: traceEvents follow
  std::ofstream os(out, std::ios::binary | std::ios::trunc);
  os << head << ",\n  \"traceEvents\": [\n";
  const int64_t period_ns = (last - first) + 10'000;
  const int64_t target = megabytes << 20;
  int64_t events = 0, bytes = 0;
  for (int64_t copy = 0; bytes < target; ++copy) {
    const int64_t shift = copy * period_ns, id_shift = copy * 100'000;
    for (const Template& t : templates) {
      nlohmann::json e = t.event;
      if (e.contains("args")) {
        nlohmann::json& a = e["args"];
        for (const char* key : {"correlation", "External id"}) {
          if (a.contains(key) && a[key].is_number_integer()) a[key] = a[key].get<int64_t>() + id_shift;
        }
      }
      if (e.contains("id") && e["id"].is_number_integer()) e["id"] = e["id"].get<int64_t>() + id_shift;
      if (e.value("cat", "") == "user_annotation" && e.value("name", "").starts_with("ProfilerStep#")) {
        e["name"] = "ProfilerStep#" + std::to_string(events);
      }
      std::string text = e.dump();
      std::string times;
      if (t.has_ts) times += "\"ts\": " + Micros(t.ts_ns + shift) + ", ";
      if (t.dur_ns >= 0) times += "\"dur\": " + Micros(t.dur_ns) + ", ";
      text.insert(1, times);
      if (events > 0) text.insert(0, ",\n");
      os << text;
      bytes += static_cast<int64_t>(text.size());
      ++events;
    }
  }
  os << "\n  ]\n}\n";
  return events;
}

struct Measured {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all threads
  int64_t peak_rss_kb = 0;
  int64_t events = -1;  // events read; -1 on failure
};

// Runs `work` in a child; its wall time and peak resident memory.
template <typename Work>
Measured InChild(Work work) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const auto start = std::chrono::steady_clock::now();
    Measured m;
    m.events = work();
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    m.peak_rss_kb = usage.ru_maxrss;
    m.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    (void)!::write(fds[1], &m, sizeof m);
    ::_exit(0);
  }
  ::close(fds[1]);
  Measured m;
  (void)!::read(fds[0], &m, sizeof m);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t megabytes = argc > 1 ? std::atoll(argv[1]) : 600;
  const fs::path folder = argc > 2 ? argv[2] : "/tmp";
  const std::string fixture =
      argc > 3 ? argv[3] : std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/profiler_steps.json";
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  const std::string trace = (folder / ("nimble_import_bench_" + std::to_string(megabytes) + "mb.json")).string();
  const std::string db = (folder / "nimble_import_bench.db").string();
  if (!fs::exists(trace)) {
    std::fprintf(stderr, "writing %s ...\n", trace.c_str());
    WriteTrace(fixture, trace + ".tmp", megabytes);
    fs::rename(trace + ".tmp", trace);
  }
  const double mib = static_cast<double>(fs::file_size(trace)) / (1 << 20);
  double load_before = 0;
  ::getloadavg(&load_before, 1);
  const Measured read = InChild([&]() -> int64_t {
    auto t = nimble::workflow::ReadKinetoTrace(trace, threads);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
      return -1;
    }
    for (const nimble::StatEntry& s : t->stats) {
      if (s.name == "import.events_read") return s.value;
    }
    return 0;
  });
  fs::remove(db);
  const Measured import = InChild([&]() -> int64_t {
    nimble::workflow::ImportOptions options;
    options.input = trace;
    options.output = db;
    options.threads = threads;
    auto r = nimble::workflow::Import(options);
    if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
    return r.ok() ? r->events_read() : -1;
  });
  const int64_t events = read.events;
  const bool ok = read.events >= 0 && import.events == read.events;
  const double db_mib = fs::exists(db) ? static_cast<double>(fs::file_size(db)) / (1 << 20) : 0;
  const unsigned cores = std::thread::hardware_concurrency();
  std::printf("| trace | %.0f MiB, %lld events; %u cores, %d reader threads (0: one per core), load average "
              "before %.1f |\n",
              mib, static_cast<long long>(events), cores, threads, load_before);
  std::printf("| read into records | %.2f s wall, %.2f M events/s, %.0f MiB/s; %.2f s CPU, %.2f M events per CPU-s; "
              "peak RSS %.0f MiB%s |\n",
              read.seconds, events / read.seconds / 1e6, mib / read.seconds, read.cpu_seconds,
              events / read.cpu_seconds / 1e6, read.peak_rss_kb / 1024.0, read.events >= 0 ? "" : " (FAILED)");
  std::printf("| whole import (read + run database) | %.2f s wall, %.2f M events/s; %.2f s CPU; peak RSS %.0f MiB; "
              "database %.0f MiB%s |\n",
              import.seconds, events / import.seconds / 1e6, import.cpu_seconds, import.peak_rss_kb / 1024.0, db_mib,
              import.events >= 0 ? "" : " (FAILED)");
  fs::remove(db);
  return ok ? 0 : 1;
}
