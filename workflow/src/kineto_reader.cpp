#include "kineto_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "kineto_converter.h"
#include "kineto_parallel.h"
#include "kineto_sax.h"
#include "trace_file_buf.h"

namespace nimble::workflow {
namespace {

StatusOr<ImportedTrace> Finish(const std::string& path, KinetoConverter& converter, int64_t events) {
  NIMBLE_ASSIGN_OR_RETURN(ImportedTrace imported, converter.Finish(events));
  if (imported.run.created_unix_s == 0) {  // no base time in the trace: when the file was written
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) imported.run.created_unix_s = st.st_mtime;
  }
  return imported;
}

}  // namespace

StatusOr<ImportedTrace> ReadKinetoTrace(const std::string& path, int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads > 1) {
    auto fast = std::make_unique<KinetoConverter>(path);
    int64_t events = 0;
    if (ReadKinetoInParallel(path, threads, *fast, events)) return Finish(path, *fast, events);
  }
  // One thread, or a file the fast path does not take: read in order, which also names any error's place.
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<TraceFileBuf> buf, TraceFileBuf::Open(path));
  KinetoConverter converter(path);
  NIMBLE_ASSIGN_OR_RETURN(const int64_t events, ReadKinetoEvents(*buf, path, converter));
  return Finish(path, converter, events);
}

}  // namespace nimble::workflow
