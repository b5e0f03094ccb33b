// Reads a torch.profiler trace (`prof.export_chrome_trace("trace.json")`: Kineto's Chrome-format JSON,
// plain or gzip-compressed) into an ImportedTrace, streaming: memory holds the records, never the text.
// What maps to what is in workflow/README.md ("Importing traces"). Errors name the file and the place
// (byte offset and line, the event's index and field). `threads` readers (0: one per core) share the
// parsing of large files (kineto_parallel.h); the result does not depend on it. Any thread; one call
// per file.
#pragma once

#include <string>

#include "nimble/core/imported_trace.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

StatusOr<ImportedTrace> ReadKinetoTrace(const std::string& path, int threads = 0);

}  // namespace nimble::workflow
