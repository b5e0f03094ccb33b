// Streaming read of a Chrome-format trace (torch.profiler / Kineto JSON) with nlohmann::json's SAX
// interface: never a DOM of the file. A small stack follows where the parser is (the top-level object or
// a bare array of events, traceEvents, one event, its args, deviceProperties); one KinetoEvent is filled
// at a time and handed to the sink when its object closes, so memory does not grow with the file. Values
// Nimble does not read are skipped at any depth. The first error (malformed JSON, a sink's error, a value
// of the wrong type where the layout is fixed) stops the read. One thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kineto_event.h"
#include "nimble/core/status.h"
#include "trace_file_buf.h"

namespace nimble::workflow {

class KinetoEventSink {
 public:
  virtual ~KinetoEventSink() = default;
  virtual Status OnEvent(const KinetoEvent& event) = 0;
  virtual Status OnDevice(const KinetoDevice& device) = 0;
  virtual void OnBaseTime(int64_t base_ns) = 0;  // "baseTimeNanoseconds", wherever it appears
};

// Reads the whole text of `buf` (opened on `path`) into `sink`. Returns the number of events read.
// Errors name `path` and the place (byte offset and line, the event's index).
StatusOr<int64_t> ReadKinetoEvents(TraceFileBuf& buf, const std::string& path, KinetoEventSink& sink);

}  // namespace nimble::workflow
