#include "nimble/collector/store_sink.h"

namespace nimble::collector {

StatusOr<std::unique_ptr<StoreSink>> StoreSink::Create(const std::string& path, RunInfo run) {
  auto writer = store::RunWriter::Create(path, run);
  if (!writer.ok()) return writer.status();
  run.id = (*writer)->run_id();
  return std::unique_ptr<StoreSink>(new StoreSink(std::move(writer).value(), std::move(run)));
}

StoreSink::StoreSink(std::unique_ptr<store::RunWriter> writer, RunInfo run)
    : writer_(std::move(writer)), run_(std::move(run)) {}

Status StoreSink::Consume(const ActivityChunk& chunk, const StringTable& strings) {
  NIMBLE_RETURN_IF_ERROR(writer_->AppendKernels(chunk.kernels, strings));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendMemcpys(chunk.memcpys));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendMemsets(chunk.memsets));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendSyncs(chunk.syncs));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendApiCalls(chunk.api_calls, strings));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendRanges(chunk.ranges, strings));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendExternalCorrelations(chunk.external_correlations));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendOverheads(chunk.overheads, strings));
  NIMBLE_RETURN_IF_ERROR(writer_->AppendGraphLaunches(chunk.graph_launches));
  return OkStatus();
}

Status StoreSink::Finish(const SessionSummary& summary, const StringTable& strings) {
  for (const DeviceInfo& device : summary.devices) NIMBLE_RETURN_IF_ERROR(writer_->AddDevice(device, strings));
  for (const StatEntry& stat : summary.stats) NIMBLE_RETURN_IF_ERROR(writer_->AddStat(stat));
  run_.iterations = summary.iterations;
  if (run_.device.empty() && !summary.devices.empty()) run_.device = strings.Get(summary.devices.front().name);
  NIMBLE_RETURN_IF_ERROR(writer_->UpdateRun(run_));
  return writer_->Commit();
}

}  // namespace nimble::collector
