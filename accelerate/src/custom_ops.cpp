// The nimble:: TorchScript operators of a scheduled graph and the stream context they act on.
// Registered with conservative alias analysis: they read and write nothing the graph can see, and
// anything else would let dead-code elimination drop them or let passes move ops across them. The one
// compute operator, nimble::conv_epilogue_, is registered here too, so every program that can load a
// graph holding it has it.
#include <ATen/core/ivalue.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <string>
#include <vector>

#include "allocation_recorder.h"
#include "branch_capture.h"
#include "conv_epilogue.h"
#include "stream_context.h"

namespace nimble::accelerate {
namespace {

thread_local StreamContext* g_current_context = nullptr;

// Throws so that the interpreter attaches the failing node's source location to the message.
void Check(cudaError_t code, const char* what) {
  TORCH_CHECK(code == cudaSuccess, "nimble::", what, ": ", cudaGetErrorName(code), " (",
              cudaGetErrorString(code), ")");
}

void ForkStreamsOp() {
  if (auto* context = StreamContext::Current()) context->Fork();
}
// Names the op that starts here to the allocation recorder of a traced capture (allocation_recorder.h).
void OpBeginOp(int64_t op) {
  if (auto* recorder = AllocationRecorder::Current()) recorder->BeginOp(op);
}
void SetStreamOp(int64_t stream) {
  if (auto* context = StreamContext::Current()) context->SetStream(stream);
}
void RecordEventOp(int64_t event) {
  if (auto* context = StreamContext::Current()) context->Record(event);
}
void WaitEventOp(int64_t event) {
  if (auto* context = StreamContext::Current()) context->Wait(event);
}
// Calls `use` with the allocation of every CUDA tensor in `value` (a tensor, or lists, tuples and
// optionals of them).
template <typename Fn>
void ForEachCudaStorage(const c10::IValue& value, const Fn& use) {
  if (value.isTensor()) {
    const at::Tensor& tensor = value.toTensor();
    if (tensor.defined() && tensor.is_cuda() && tensor.has_storage()) use(tensor.storage().data_ptr());
  } else if (value.isTuple()) {
    for (const auto& element : value.toTupleRef().elements()) ForEachCudaStorage(element, use);
  } else if (value.isList()) {
    for (const auto& element : value.toListRef()) ForEachCudaStorage(element, use);
  }
}
void SeedPoolOp(const std::vector<int64_t>& bytes) {
  if (auto* context = StreamContext::Current()) context->SeedPool(bytes);
}
void RecordStreamOp(const c10::IValue& value) {
  if (auto* context = StreamContext::Current()) context->RecordUse(value);
}
// Does nothing: as the last use of an op output it makes the interpreter drop the output right here,
// where the rewrite placed it (on the producer's stream, once every reader is ordered before).
void ReleaseOp(const c10::IValue& value) { (void)value; }
// `keep` holds the op outputs that crossed streams when the rewrite was asked to hold them to the join
// (tensors, or lists, tuples and optionals holding them, hence Any[]; empty by default, when
// nimble::record_stream frees them after their last reader instead): as arguments of the last node they
// stay alive (and their memory out of the caching allocator's reach) until every side stream has joined.
void JoinStreamsOp(const c10::List<c10::IValue>& keep) {
  (void)keep;
  if (auto* context = StreamContext::Current()) context->Join();
}

}  // namespace

StreamSet::~StreamSet() {
  // Destruction cannot report; the calls return errors only for handles already invalid.
  for (cudaStream_t stream : streams_) (void)cudaStreamSynchronize(stream);
  for (cudaStream_t stream : streams_) (void)cudaStreamDestroy(stream);
}

StatusOr<cudaStream_t> StreamSet::At(size_t index) {
  while (streams_.size() <= index) {
    cudaStream_t stream = nullptr;
    if (auto code = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); code != cudaSuccess) {
      return Internal(std::string("creating a stream: cudaStreamCreateWithFlags: ") + cudaGetErrorString(code));
    }
    streams_.push_back(stream);
  }
  return streams_[index];
}

StatusOr<std::unique_ptr<StreamContext>> StreamContext::Create(int device, int32_t num_streams, int32_t num_events,
                                                               std::shared_ptr<StreamSet> streams, bool branches) {
  if (num_streams < 1 || num_events < 0) return InvalidArgument("stream context: bad stream or event count");
  if (streams != nullptr && streams->device() != device) return InvalidArgument("stream context: streams of another device");
  std::unique_ptr<StreamContext> context(new StreamContext());
  context->device_ = device;
  context->num_events_ = num_events;
  if (branches) {
    context->branches_ = true;
    context->branch_count_ = num_streams;
    context->streams_ = streams;
    return context;
  }
  context->streams_ = streams != nullptr ? std::move(streams) : std::make_shared<StreamSet>(device);
  auto fail = [](cudaError_t code, const std::string& what) {
    return Internal("stream context: " + what + ": " + cudaGetErrorString(code));
  };
  for (int32_t s = 1; s < num_streams; ++s) {
    StatusOr<cudaStream_t> stream = context->streams_->At(static_cast<size_t>(s));
    if (!stream.ok()) return stream.status().WithContext("stream context");
    context->side_streams_.push_back(*stream);
  }
  auto make_event = [&](cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDisableTiming); };
  for (int32_t e = 0; e < num_events; ++e) {
    cudaEvent_t event = nullptr;
    if (auto code = make_event(&event); code != cudaSuccess) return fail(code, "cudaEventCreateWithFlags");
    context->sync_events_.push_back(event);
  }
  if (auto code = make_event(&context->fork_event_); code != cudaSuccess) return fail(code, "cudaEventCreateWithFlags");
  for (size_t s = 0; s < context->side_streams_.size(); ++s) {
    cudaEvent_t event = nullptr;
    if (auto code = make_event(&event); code != cudaSuccess) return fail(code, "cudaEventCreateWithFlags");
    context->join_events_.push_back(event);
  }
  return context;
}

StreamContext::~StreamContext() {
  capture_.reset();
  // Destruction cannot report; the destroy calls return errors only for handles already invalid.
  for (cudaStream_t stream : side_streams_) (void)cudaStreamSynchronize(stream);
  for (cudaEvent_t event : sync_events_) (void)cudaEventDestroy(event);
  for (cudaEvent_t event : join_events_) (void)cudaEventDestroy(event);
  if (fork_event_ != nullptr) (void)cudaEventDestroy(fork_event_);
  // The streams belong to streams_, destroyed with its last holder.
}

StreamContext* StreamContext::Current() { return g_current_context; }

cudaStream_t StreamContext::StreamAt(int64_t stream) const {
  TORCH_CHECK(forked_, "nimble::set_stream before nimble::fork_streams");
  TORCH_CHECK(stream >= 0 && stream < num_streams(), "nimble: stream ", stream, " out of range (", num_streams(),
              " streams)");
  return stream == 0 ? origin_ : side_streams_[static_cast<size_t>(stream - 1)];
}

void StreamContext::Fork() {
  origin_ = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
  forked_ = true;
  if (branches_) {
    capture_.reset();
    reused_blocks_ = hazard_edges_ = 0;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    Check(cudaStreamIsCapturing(origin_, &status), "fork_streams: cudaStreamIsCapturing");
    if (status == cudaStreamCaptureStatusActive) capture_ = std::make_unique<BranchCapture>(origin_, branch_count_);
    return;
  }
  if (side_streams_.empty()) return;
  Check(cudaEventRecord(fork_event_, origin_), "fork_streams: cudaEventRecord");
  for (cudaStream_t stream : side_streams_) {
    Check(cudaStreamWaitEvent(stream, fork_event_, 0), "fork_streams: cudaStreamWaitEvent");
  }
}

void StreamContext::SetStream(int64_t stream) {
  if (branches_) {
    TORCH_CHECK(forked_, "nimble::set_stream before nimble::fork_streams");
    TORCH_CHECK(stream >= 0 && stream < num_streams(), "nimble: stream ", stream, " out of range (", num_streams(),
                " streams)");
    if (capture_ != nullptr) capture_->Switch(static_cast<int32_t>(stream));
    return;
  }
  c10::cuda::setCurrentCUDAStream(
      c10::cuda::getStreamFromExternal(StreamAt(stream), static_cast<c10::DeviceIndex>(device_)));
}

void StreamContext::Record(int64_t event) {
  TORCH_CHECK(event >= 0 && event < num_events_, "nimble: event ", event,
              " out of range");
  if (branches_) {
    if (capture_ != nullptr) capture_->Record(event);
    return;
  }
  const cudaStream_t current = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
  Check(cudaEventRecord(sync_events_[static_cast<size_t>(event)], current), "record_event: cudaEventRecord");
}

void StreamContext::Wait(int64_t event) {
  TORCH_CHECK(event >= 0 && event < num_events_, "nimble: event ", event,
              " out of range");
  if (branches_) {
    if (capture_ != nullptr) capture_->Wait(event);
    return;
  }
  const cudaStream_t current = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
  Check(cudaStreamWaitEvent(current, sync_events_[static_cast<size_t>(event)], 0), "wait_event: cudaStreamWaitEvent");
}

// Marks the CUDA tensors in `value` as used on the current stream: the caching allocator then reuses
// their blocks only after that stream's work (see stream_rewrite.h); in a branch capture, only after
// the current branch's work so far. Tensors whose memory the caching allocator does not own are left
// alone by it.
void StreamContext::RecordUse(const c10::IValue& value) {
  TORCH_CHECK(forked_, "nimble::record_stream before nimble::fork_streams");
  if (branches_) {
    if (capture_ != nullptr) ForEachCudaStorage(value, [&](const c10::DataPtr& data) { capture_->RecordUse(data.get()); });
    return;
  }
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_));
  ForEachCudaStorage(value, [&](const c10::DataPtr& data) { c10::cuda::CUDACachingAllocator::recordStream(data, stream); });
}

void StreamContext::SeedPool(const std::vector<int64_t>& bytes) {
  TORCH_CHECK(forked_, "nimble::seed_pool before nimble::fork_streams");
  TORCH_CHECK(static_cast<int64_t>(bytes.size()) == num_streams(), "nimble::seed_pool: ", bytes.size(),
              " seeds for ", num_streams(), " streams");
  if (branches_) {
    // One capture stream, so one seed: the first stream's (the others must be 0).
    for (size_t s = 1; s < bytes.size(); ++s) {
      TORCH_CHECK(bytes[s] == 0, "nimble::seed_pool: a branch capture seeds its one capture stream only, not stream ", s);
    }
    TORCH_CHECK(bytes.empty() || bytes[0] >= 0, "nimble::seed_pool: a seed of ", bytes[0], " bytes");
    if (capture_ != nullptr && !bytes.empty()) capture_->Seed(static_cast<size_t>(bytes[0]));
    return;
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  Check(cudaStreamIsCapturing(origin_, &status), "seed_pool: cudaStreamIsCapturing");
  if (status != cudaStreamCaptureStatusActive) return;
  for (int64_t s = 0; s < num_streams(); ++s) {
    const int64_t size = bytes[static_cast<size_t>(s)];
    TORCH_CHECK(size >= 0, "nimble::seed_pool: a seed of ", size, " bytes");
    if (size == 0) continue;
    void* block = c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(static_cast<size_t>(size), StreamAt(s));
    c10::cuda::CUDACachingAllocator::raw_delete(block);
  }
}

void StreamContext::Join() {
  TORCH_CHECK(forked_, "nimble::join_streams before nimble::fork_streams");
  if (branches_) {
    forked_ = false;
    if (capture_ != nullptr) {
      std::unique_ptr<BranchCapture> capture = std::move(capture_);
      capture->Join();
      reused_blocks_ = capture->reused_blocks();
      hazard_edges_ = capture->hazard_edges();
    }
    return;
  }
  for (size_t s = 0; s < side_streams_.size(); ++s) {
    Check(cudaEventRecord(join_events_[s], side_streams_[s]), "join_streams: cudaEventRecord");
    Check(cudaStreamWaitEvent(origin_, join_events_[s], 0), "join_streams: cudaStreamWaitEvent");
  }
  c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromExternal(origin_, static_cast<c10::DeviceIndex>(device_)));
  forked_ = false;
}

void StreamContext::JoinSideStreams() {
  const cudaStream_t current = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_)).stream();
  for (size_t s = 0; s < side_streams_.size(); ++s) {
    Check(cudaEventRecord(join_events_[s], side_streams_[s]), "join side streams: cudaEventRecord");
    Check(cudaStreamWaitEvent(current, join_events_[s], 0), "join side streams: cudaStreamWaitEvent");
  }
}

void StreamContext::Abort() noexcept {
  if (!forked_) return;
  forked_ = false;
  if (branches_) {
    capture_.reset();  // the capture is abandoned whole; only the hooks need to go
    return;
  }
  for (size_t s = 0; s < side_streams_.size(); ++s) {
    if (cudaEventRecord(join_events_[s], side_streams_[s]) == cudaSuccess) {
      (void)cudaStreamWaitEvent(origin_, join_events_[s], 0);
    }
  }
  try {
    c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromExternal(origin_, static_cast<c10::DeviceIndex>(device_)));
  } catch (const std::exception&) {
    // The caller makes its own stream current next; nothing else depends on this one.
  }
  (void)cudaGetLastError();  // the failed records above must not surface in the next unrelated check
}

StreamContextScope::StreamContextScope(StreamContext* context) : previous_(g_current_context) {
  g_current_context = context;
}
StreamContextScope::~StreamContextScope() { g_current_context = previous_; }

// Referencing this function from the rewrite, the executor and the artifact loader pulls this object
// file, and with it the static registration below, into every program that uses them.
void RegisterNimbleOps() {}

}  // namespace nimble::accelerate

TORCH_LIBRARY(nimble, m) {
  using c10::AliasAnalysisKind;
  m.def(torch::schema("nimble::fork_streams() -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::ForkStreamsOp);
  m.def(torch::schema("nimble::set_stream(int stream) -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::SetStreamOp);
  m.def(torch::schema("nimble::op_begin(int op) -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::OpBeginOp);
  m.def(torch::schema("nimble::seed_pool(int[] bytes) -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::SeedPoolOp);
  m.def(torch::schema("nimble::record_event(int event) -> ()", AliasAnalysisKind::CONSERVATIVE),
        &nimble::accelerate::RecordEventOp);
  m.def(torch::schema("nimble::wait_event(int event) -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::WaitEventOp);
  m.def(torch::schema("nimble::record_stream(Any value) -> ()", AliasAnalysisKind::CONSERVATIVE),
        &nimble::accelerate::RecordStreamOp);
  m.def(torch::schema("nimble::release(Any value) -> ()", AliasAnalysisKind::CONSERVATIVE), &nimble::accelerate::ReleaseOp);
  m.def(torch::schema("nimble::join_streams(Any[] keep) -> ()", AliasAnalysisKind::CONSERVATIVE),
        &nimble::accelerate::JoinStreamsOp);
  // A kernel of the model, not a scheduling op: its schema says what it writes (conv_epilogue.h).
  m.def(torch::schema("nimble::conv_epilogue_(Tensor(a!) self, Tensor? bias, Tensor? other, int activation) -> Tensor(a!)",
                      AliasAnalysisKind::FROM_SCHEMA),
        &nimble::accelerate::ConvEpilogueOp);
}
