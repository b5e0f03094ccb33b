#include "nimble/collector/trace_sink.h"

namespace nimble::collector {
namespace {

template <typename T>
void Append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

Status TraceSink::Consume(const ActivityChunk& chunk, const StringTable& /*strings*/) {
  Append(trace_.kernels, chunk.kernels);
  Append(trace_.memcpys, chunk.memcpys);
  Append(trace_.memsets, chunk.memsets);
  Append(trace_.syncs, chunk.syncs);
  Append(trace_.api_calls, chunk.api_calls);
  Append(trace_.ranges, chunk.ranges);
  Append(trace_.external_correlations, chunk.external_correlations);
  Append(trace_.overheads, chunk.overheads);
  Append(trace_.graph_launches, chunk.graph_launches);
  return OkStatus();
}

Status TraceSink::Finish(const SessionSummary& summary, const StringTable& strings) {
  // One copy at the end: the converter's table only grew, so every id seen so far stays valid.
  trace_.strings = strings;
  trace_.devices = summary.devices;
  summary_ = summary;
  finished_ = true;
  return OkStatus();
}

}  // namespace nimble::collector
