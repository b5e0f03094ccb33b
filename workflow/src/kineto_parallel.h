// The fast path of the Kineto reader, for the layout torch.profiler writes (a top-level object, or a bare
// array, whose "traceEvents" is an array of event objects): one thread walks the text only to find where
// each event starts and ends (strings, escapes, brackets; no values) and cuts whole events into chunks of
// about 4 MiB; worker threads read the chunks with simdjson (kineto_chunk.h, which reads every field as the
// sequential path's SAX handler does) into the same converter, and the parts are merged in file order, so
// the records are the sequential path's. Memory: the
// records, plus a few chunks in flight. Anything unusual — another layout, a syntax or type error, a
// damaged file — returns false without a message: the caller then reads the file sequentially, which
// says what is wrong and where. Called from one thread; it starts and joins its workers.
#pragma once

#include <cstdint>
#include <string>

#include "kineto_converter.h"

namespace nimble::workflow {

// True when all of `path` was read into `into` with `threads` workers (`events` then holds the count).
// False: read it sequentially, into a fresh converter (`into` may hold part of the file).
bool ReadKinetoInParallel(const std::string& path, int threads, KinetoConverter& into, int64_t& events);

}  // namespace nimble::workflow
