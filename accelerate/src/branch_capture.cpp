#include "branch_capture.h"

#include <ATen/record_function.h>
#include <c10/core/CachingDeviceAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>

namespace nimble::accelerate {
namespace {

thread_local BranchCapture* g_capture = nullptr;

void Throw(cudaError_t code, const char* what) {
  if (code != cudaSuccess) (void)cudaGetLastError();  // reported here, not again by a later unrelated check
  TORCH_CHECK(code == cudaSuccess, "nimble: branch capture: ", what, ": ", cudaGetErrorName(code), " (",
              cudaGetErrorString(code), ")");
}

void SortUnique(BranchCapture::Nodes* nodes) {
  std::sort(nodes->begin(), nodes->end());
  nodes->erase(std::unique(nodes->begin(), nodes->end()), nodes->end());
}

void Append(BranchCapture::Nodes* to, const BranchCapture::Nodes& from) { to->insert(to->end(), from.begin(), from.end()); }

// The allocator keeps its trace trackers for the life of the process: one, attached by the first branch
// capture, hands the capturing thread's entries to its BranchCapture and returns at once on any other
// thread or after the capture (a few tens of nanoseconds per allocation from then on).
void AttachAllocatorHookOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker([](const c10::CachingDeviceAllocator::TraceEntry& entry) {
      BranchCapture* capture = g_capture;
      if (capture == nullptr || entry.stream_ != static_cast<void*>(capture->stream())) return;
      using Action = c10::CachingDeviceAllocator::TraceEntry::Action;
      if (entry.action_ == Action::ALLOC) capture->OnAlloc(entry.addr_, entry.size_);
      if (entry.action_ == Action::FREE_COMPLETED) capture->OnFree(entry.addr_, entry.size_);
    });
  });
}

// The ATen ops that call cuBLAS or cuBLASLt, whose workspace belongs to the (one) capture stream. A
// composite op (aten::linear, aten::matmul) reaches one of these through the dispatcher.
bool IsGemm(std::string_view name) {
  static const std::unordered_set<std::string_view> kGemms = {
      "aten::mm",      "aten::addmm",   "aten::bmm",         "aten::baddbmm",           "aten::addbmm",
      "aten::mv",      "aten::addmv",   "aten::dot",         "aten::vdot",              "aten::addr",
      "aten::_int_mm", "aten::_scaled_mm", "aten::_addmm_activation", "aten::_grouped_mm", "aten::_scaled_grouped_mm",
      "aten::addmm_",  "aten::baddbmm_", "aten::addbmm_",     "aten::addmv_",            "aten::addr_",
      "aten::triangular_solve", "aten::linalg_solve_triangular"};
  return kGemms.count(name) != 0;
}

std::unique_ptr<at::ObserverContext> GemmBegins(const at::RecordFunction& fn) {
  if (BranchCapture* capture = g_capture; capture != nullptr && IsGemm(fn.name())) capture->OnGemm(true);
  return nullptr;
}

void GemmEnds(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
  if (BranchCapture* capture = g_capture; capture != nullptr && IsGemm(fn.name())) capture->OnGemm(false);
}

}  // namespace

BranchCapture::BranchCapture(cudaStream_t stream, int32_t branches) : stream_(stream) {
  TORCH_CHECK(branches >= 1, "nimble: branch capture of ", branches, " branches");
  // The GEMM chain rests on the dispatcher's callbacks.
  TORCH_CHECK(at::isRecordFunctionEnabled(), "nimble: branch capture needs RecordFunction, which this thread disabled");
  const Nodes start = Dependencies();
  tails_.assign(static_cast<size_t>(branches), start);
  AttachAllocatorHookOnce();
  gemm_callback_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&GemmBegins, &GemmEnds).scopes({at::RecordScope::FUNCTION}));
  previous_ = g_capture;
  g_capture = this;
  installed_ = true;
}

BranchCapture::~BranchCapture() { Uninstall(); }

void BranchCapture::Uninstall() noexcept {
  if (!installed_) return;
  installed_ = false;
  g_capture = previous_;
  at::removeCallback(gemm_callback_);
}

BranchCapture::Nodes BranchCapture::Dependencies() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* nodes = nullptr;
  // Asked for, so that a programmatic edge (a kernel launched with programmatic stream serialization)
  // is not a lossy query; the edges are set back as full dependencies (SetDependencies).
  const cudaGraphEdgeData* edges = nullptr;
  size_t count = 0;
  Throw(cudaStreamGetCaptureInfo(stream_, &status, nullptr, nullptr, &nodes, &edges, &count), "cudaStreamGetCaptureInfo");
  TORCH_CHECK(status == cudaStreamCaptureStatusActive, "nimble: branch capture on a stream that is not capturing");
  return Nodes(nodes, nodes + count);
}

void BranchCapture::SetDependencies(const Nodes& nodes, bool add) {
  Nodes copy = nodes;  // the runtime takes a non-const array
  // Default edges throughout (no edge data): a programmatic edge saved with a branch's tail is set back
  // as a full dependency, which orders at least as much.
  Throw(cudaStreamUpdateCaptureDependencies(stream_, copy.data(), nullptr, copy.size(),
                                            add ? cudaStreamAddCaptureDependencies : cudaStreamSetCaptureDependencies),
        "cudaStreamUpdateCaptureDependencies");
}

void BranchCapture::Check() const { TORCH_CHECK(error_.empty(), "nimble: branch capture: ", error_); }

void BranchCapture::Switch(int32_t branch) {
  Check();
  TORCH_CHECK(branch >= 0 && branch < static_cast<int32_t>(tails_.size()), "nimble: branch ", branch, " out of range");
  if (branch == current_) return;
  tails_[static_cast<size_t>(current_)] = Dependencies();
  SetDependencies(tails_[static_cast<size_t>(branch)], /*add=*/false);
  current_ = branch;
}

void BranchCapture::Record(int64_t event) {
  Check();
  TORCH_CHECK(event >= 0, "nimble: event ", event, " out of range");
  if (events_.size() <= static_cast<size_t>(event)) {
    events_.resize(static_cast<size_t>(event) + 1);
    recorded_.resize(static_cast<size_t>(event) + 1, 0);
  }
  events_[static_cast<size_t>(event)] = Dependencies();
  recorded_[static_cast<size_t>(event)] = 1;
}

void BranchCapture::Wait(int64_t event) {
  Check();
  TORCH_CHECK(event >= 0 && static_cast<size_t>(event) < events_.size() && recorded_[static_cast<size_t>(event)] != 0,
              "nimble: wait for event ", event, " before its record");
  SetDependencies(events_[static_cast<size_t>(event)], /*add=*/true);
}

void BranchCapture::RecordUse(const void* block) {
  Check();
  uses_[reinterpret_cast<uintptr_t>(block)].push_back(current_);
}

void BranchCapture::Seed(size_t bytes) {
  Check();
  if (bytes == 0) return;
  seeding_ = true;
  try {
    c10::cuda::CUDACachingAllocator::raw_delete(c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, stream_));
  } catch (...) {
    seeding_ = false;
    throw;
  }
  seeding_ = false;
}

void BranchCapture::Join() {
  Check();
  tails_[static_cast<size_t>(current_)] = Dependencies();
  Nodes all;
  for (const Nodes& tail : tails_) Append(&all, tail);
  SortUnique(&all);
  SetDependencies(all, /*add=*/false);
  current_ = 0;
  Uninstall();
}

void BranchCapture::OnAlloc(uintptr_t address, size_t bytes) noexcept {
  if (!error_.empty() || seeding_) return;
  try {
    const Nodes after = freed_.Overlapping(address, address + bytes);
    allocated_on_[address] = current_;
    if (after.empty()) return;
    ++reused_blocks_;
    hazard_edges_ += static_cast<int64_t>(after.size());
    SetDependencies(after, /*add=*/true);
  } catch (const std::exception& e) {
    error_ = std::string("an allocation during the capture: ") + e.what();
  }
}

void BranchCapture::OnFree(uintptr_t address, size_t bytes) noexcept {
  if (!error_.empty() || seeding_) return;
  try {
    // The branch's work up to the free, or, for another branch, up to now (which comes later).
    auto work_of = [&](int32_t branch) { return branch == current_ ? Dependencies() : tails_[static_cast<size_t>(branch)]; };
    Nodes after = Dependencies();
    // On streams, the block would go back to the stream that allocated it and serve that stream's later
    // requests, after everything it had queued: the allocating branch's work so far is waited for too
    // (its own readers of a value dropped on another branch). A block whose allocation the hooks did
    // not see waits for every branch's work.
    const auto owner = allocated_on_.find(address);
    if (owner != allocated_on_.end()) {
      Append(&after, work_of(owner->second));
    } else {
      for (int32_t branch = 0; branch < static_cast<int32_t>(tails_.size()); ++branch) Append(&after, work_of(branch));
    }
    // Like recordStream: each branch that recorded a use, with all its work up to the free (a later
    // read there through an alias included).
    if (auto use = uses_.find(address); use != uses_.end()) {
      for (int32_t branch : use->second) Append(&after, work_of(branch));
      uses_.erase(use);
    }
    // Memory freed on another branch than the one that allocated it: what the allocation waited for
    // is not implied by this branch's dependencies, so it is kept.
    const bool same_branch = owner != allocated_on_.end() && owner->second == current_;
    if (owner != allocated_on_.end()) allocated_on_.erase(owner);
    freed_.Set(address, address + bytes, std::move(after), /*keep_covered=*/!same_branch);
  } catch (const std::exception& e) {
    error_ = std::string("a free during the capture: ") + e.what();
  }
}

void BranchCapture::OnGemm(bool begin) noexcept {
  if (!error_.empty()) return;
  try {
    if (begin) {
      if (gemm_depth_++ == 0 && !gemm_.empty()) SetDependencies(gemm_, /*add=*/true);
    } else if (gemm_depth_ > 0 && --gemm_depth_ == 0) {
      gemm_ = Dependencies();
    }
  } catch (const std::exception& e) {
    error_ = std::string("a GEMM op during the capture: ") + e.what();
  }
}

}  // namespace nimble::accelerate
