// The record workflow: checks, then runs the program with the injection library in its environment
// (CUPTI records it into the database from inside), waits for it, and reads back the run it added.
#include "nimble/workflow/record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "nimble/collector/activity_kinds.h"
#include "nimble/collector/injection_env.h"
#include "nimble/store/run_reader.h"
#include "nimble/workflow/progress.h"

#ifndef NIMBLE_INJECT_BUILD_PATH
#define NIMBLE_INJECT_BUILD_PATH ""  // a build without CUDA: the library may still be installed
#endif
#ifndef NIMBLE_CUPTI_BUILD_PATH
#define NIMBLE_CUPTI_BUILD_PATH ""
#endif

namespace nimble::workflow {
namespace {

namespace fs = std::filesystem;

struct LibraryPaths {
  std::string inject;  // libnimble_inject.so, for CUDA_INJECTION64_PATH
  std::string cupti;   // libcupti, for NVTX_INJECTION64_PATH; empty when not found
};

struct EnvSetting {
  std::string name;
  std::string value;  // empty: unset in the program's environment
};

bool IsRunnable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The program as execv needs it: a path with a '/' as given, otherwise searched in PATH.
StatusOr<std::string> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (IsRunnable(name)) return name;
    return NotFound("program not found: " + name);
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t pos = 0; pos <= dirs.size();) {
    const size_t colon = std::min(dirs.find(':', pos), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(pos, colon - pos)) / name;
    if (IsRunnable(candidate)) return candidate.string();
    pos = colon + 1;
  }
  return NotFound("program not found: " + name);
}

// The injection library next to this binary, then in ../lib (installed), then where it was built.
StatusOr<LibraryPaths> FindLibraries() {
  LibraryPaths libs;
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("NIMBLE_INJECT_LIBRARY")) candidates.emplace_back(env);
  candidates.push_back(exe_dir / "libnimble_inject.so");
  candidates.push_back(exe_dir / ".." / "lib" / "libnimble_inject.so");
  if (*NIMBLE_INJECT_BUILD_PATH != '\0') candidates.emplace_back(NIMBLE_INJECT_BUILD_PATH);
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c, ec)) {
      libs.inject = fs::canonical(c, ec).string();
      break;
    }
  }
  if (libs.inject.empty()) {
    return FailedPrecondition("libnimble_inject.so not found next to nimble-prof, in ../lib, or in the build tree; "
                              "build Nimble with -DNIMBLE_WITH_CUDA=ON (or set NIMBLE_INJECT_LIBRARY)");
  }
  const char* cupti = std::getenv("NIMBLE_CUPTI_LIBRARY");
  const fs::path cupti_path = cupti != nullptr ? fs::path(cupti) : fs::path(NIMBLE_CUPTI_BUILD_PATH);
  if (!cupti_path.empty() && fs::exists(cupti_path, ec)) libs.cupti = cupti_path.string();
  return libs;
}

// Runs already in the database, so that the new one can be told apart afterwards.
StatusOr<std::set<RunId>> ExistingRuns(const std::string& path) {
  std::set<RunId> ids;
  std::error_code ec;
  if (!fs::exists(path, ec)) return ids;
  auto reader = store::RunReader::Open(path);
  if (!reader.ok()) return reader.status().WithContext("cannot record into " + path);
  auto runs = (*reader)->Runs();
  if (!runs.ok()) return runs.status();
  for (const RunInfo& r : *runs) ids.insert(r.id);
  return ids;
}

[[noreturn]] void ExecProgram(const std::string& program, const std::vector<std::string>& args,
                              const std::vector<EnvSetting>& env) {
  for (const EnvSetting& e : env) {
    if (e.value.empty()) {
      unsetenv(e.name.c_str());
    } else {
      setenv(e.name.c_str(), e.value.c_str(), 1);
    }
  }
  // Only this process records; programs it starts in turn run unprofiled.
  setenv(collector::env::kTargetPid, std::to_string(getpid()).c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  std::fprintf(stderr, "nimble-prof: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
  _exit(127);
}

// The program's wait status. Like system(), the launcher ignores SIGINT/SIGQUIT meanwhile: the
// terminal delivers them to the program, which flushes its recording and exits.
StatusOr<int> LaunchAndWait(const std::string& program, const std::vector<std::string>& args,
                            const std::vector<EnvSetting>& env) {
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    ExecProgram(program, args, env);
  }
  int status = 0;
  const int fork_errno = errno;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (pid < 0) return Internal(std::string("fork failed: ") + std::strerror(fork_errno));
  return status;
}

int64_t StatValue(const std::vector<StatEntry>& stats, const std::string& name) {
  for (const StatEntry& s : stats) {
    if (s.name == name) return s.value;
  }
  return 0;
}

// Finds the run the program added and what it holds. An error when there is none.
StatusOr<RecordResult> ReadNewRun(const std::string& path, const std::set<RunId>& before) {
  const Status none = FailedPrecondition(
      "no database was produced at " + path +
      ": CUPTI was unavailable, the program never initialised CUDA, or it was killed before the collector "
      "could flush (see the messages above)");
  std::error_code ec;
  if (!fs::exists(path, ec)) return none;
  NIMBLE_ASSIGN_OR_RETURN(auto reader, store::RunReader::Open(path));
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<RunInfo> runs, reader->Runs());
  const RunInfo* run = nullptr;
  for (const RunInfo& r : runs) {
    if (!before.contains(r.id)) run = &r;
  }
  if (run == nullptr) return none;
  NIMBLE_ASSIGN_OR_RETURN(const Trace trace, reader->LoadTrace(run->id));
  NIMBLE_ASSIGN_OR_RETURN(const std::vector<StatEntry> stats, reader->LoadStats(run->id));
  RecordResult out;
  out.path = path;
  out.run = *run;
  std::set<StreamId> streams;
  for (const KernelRecord& k : trace.kernels) streams.insert(k.stream);
  for (const GraphLaunchRecord& g : trace.graph_launches) streams.insert(g.stream);
  out.kernels = static_cast<int64_t>(trace.kernels.size());
  out.streams = static_cast<int64_t>(streams.size());
  out.memcpys = static_cast<int64_t>(trace.memcpys.size());
  out.memsets = static_cast<int64_t>(trace.memsets.size());
  out.syncs = static_cast<int64_t>(trace.syncs.size());
  out.api_calls = static_cast<int64_t>(trace.api_calls.size());
  out.ranges = static_cast<int64_t>(trace.ranges.size());
  out.graph_launches = static_cast<int64_t>(trace.graph_launches.size());
  out.hardware_timestamps = StatValue(stats, "collector.kernel_timestamps") == 1;
  out.dropped = StatValue(stats, "collector.dropped_records") + StatValue(stats, "collector.records_lost_in_sink");
  for (const StatEntry& s : stats) {
    if (s.value != 0 && s.severity >= Severity::kWarning) out.problems.push_back(s);
  }
  return out;
}

// A database whose writer was killed before it could commit is garbage: do not leave it around.
void RemoveStalePartial(const std::string& path, const Progress& progress) {
  std::error_code ec;
  const std::string partial = path + ".partial";
  if (fs::exists(partial, ec) && fs::remove(partial, ec)) progress.Warning("removed the incomplete " + partial);
}

// Fails before anything runs when the database could not be created: the directory must exist and
// take a new file, and an existing database must be writable. A run-time failure (exit 1), not a
// usage error: the flag is well formed, the file system says no.
Status CheckOutputWritable(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return FailedPrecondition("cannot write " + path.string() + ": it is a directory");
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(dir, ec)) {
    return FailedPrecondition("cannot write " + path.string() + ": directory " + dir.string() + " does not exist");
  }
  const fs::path probe = path.string() + ".probe-" + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return FailedPrecondition("cannot write " + path.string() + ": " + std::strerror(errno));
  close(fd);
  fs::remove(probe, ec);
  if (fs::exists(path, ec) && access(path.c_str(), W_OK) != 0) {
    return FailedPrecondition("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  return OkStatus();
}

std::vector<EnvSetting> InjectionEnvironment(const RecordOptions& o, const LibraryPaths& libs,
                                             const fs::path& output) {
  namespace env = collector::env;
  std::vector<EnvSetting> vars = {
      {env::kCudaInjection, libs.inject},
      {env::kOutput, output.string()},
      {env::kKinds, o.kinds},
      {env::kIterationRange, o.iteration_range},
      {env::kStartDelayMs, o.delay_ms > 0 ? std::to_string(o.delay_ms) : ""},
      {env::kCaptureRange, o.capture_range},
      {env::kSimulateCuptiFailure, ""},  // only a test sets it, in the launcher's own environment
      {env::kGraphTrace, o.graph_trace},
      {env::kKernelTimestamps, o.kernel_timestamps},
  };
  if (!libs.cupti.empty()) vars.push_back({env::kNvtxInjection, libs.cupti});
  if (const char* simulate = std::getenv(env::kSimulateCuptiFailure)) vars[6].value = simulate;
  return vars;
}

// What the program's end means for the recording, as one line for stderr; empty for a clean exit.
std::string DescribeEnd(int wait_status) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) return {};
  if (WIFEXITED(wait_status)) return "program exited with code " + std::to_string(WEXITSTATUS(wait_status));
  const int sig = WTERMSIG(wait_status);
  return "program was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
}

}  // namespace

std::string KnownActivityKinds() { return collector::ActivityKindSet::All().ToString(); }

StatusOr<RecordResult> Record(const RecordOptions& o, const ProgressFn& progress_fn) {
  const Progress progress(progress_fn);
  if (o.command.empty()) return InvalidArgument("no program to record: give it after --");
  collector::ActivityKindSet kinds;
  std::string bad;
  if (!collector::ParseActivityKinds(o.kinds, kinds, bad)) {
    return InvalidArgument("--kinds: unknown activity kind '" + bad + "'; known: " +
                           collector::ActivityKindSet::All().ToString());
  }
  if (o.graph_trace == "graph" && (o.delay_ms > 0 || !o.capture_range.empty())) {
    return InvalidArgument(
        "--graph-trace graph records the whole run and cannot be combined with --delay-ms or --capture-range "
        "(switching CUPTI's graph-level tracing on mid-run from an NVTX range crashed the program under CUDA 13.0)");
  }
  const fs::path output = fs::absolute(o.output);
  NIMBLE_RETURN_IF_ERROR(CheckOutputWritable(output));
  NIMBLE_ASSIGN_OR_RETURN(const std::string program, FindProgram(o.command.front()));
  NIMBLE_ASSIGN_OR_RETURN(const LibraryPaths libs, FindLibraries());
  if (libs.cupti.empty()) progress.Warning("warning: libcupti not found; NVTX ranges will not be recorded");

  NIMBLE_ASSIGN_OR_RETURN(const std::set<RunId> before, ExistingRuns(output.string()));
  NIMBLE_ASSIGN_OR_RETURN(const int wait_status, LaunchAndWait(program, o.command, InjectionEnvironment(o, libs, output)));

  const std::string end = DescribeEnd(wait_status);
  auto recorded = ReadNewRun(output.string(), before);
  if (!recorded.ok()) {
    RemoveStalePartial(output.string(), progress);
    if (!end.empty()) progress.Warning(end);
    return recorded.status();
  }
  recorded->program_end = end;
  return recorded;
}

}  // namespace nimble::workflow
