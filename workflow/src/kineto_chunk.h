// The parallel read's parser: one chunk of a Kineto trace (a JSON array of events cut from traceEvents, or
// the top-level members around it) read with simdjson's On-Demand API into the same KinetoEventSink calls
// that the streaming SAX read (kineto_sax.h) makes for the same text: every field the same, absent, set
// or of the wrong type with the same words. Values Nimble does not read are still parsed, so that text
// the SAX read refuses is refused here too. On any error it stops: the caller then reads the whole file
// with the SAX read, which says what is wrong and where.
#pragma once

#include <cstdint>
#include <string>

#include "kineto_sax.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

// Reads `text` (its capacity may grow by simdjson's padding) into `sink`; its first event is
// traceEvents[first_index]. Returns the number of events read. Errors name `path` but not the place.
StatusOr<int64_t> ReadKinetoEventChunk(std::string& text, const std::string& path, int64_t first_index,
                                       KinetoEventSink& sink);

}  // namespace nimble::workflow
