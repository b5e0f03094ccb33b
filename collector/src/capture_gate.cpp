#include "capture_gate.h"

#include <generated_nvtx_meta.h>

#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nimble::collector {
namespace {

std::string_view AsciiMessage(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII ||
      attributes->message.ascii == nullptr) {
    return {};
  }
  return attributes->message.ascii;
}

// Per thread and NVTX domain: for each pushed range, whether it is a capture range.
thread_local std::unordered_map<const void*, std::vector<bool>> t_push_stacks;

// The ASCII text of a push or start call (other message types never match a capture range name).
std::string_view RangeText(CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = static_cast<const nvtxRangePushA_params*>(params)->message;
      return m != nullptr ? m : "";
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartA: {
      const char* m = static_cast<const nvtxRangeStartA_params*>(params)->message;
      return m != nullptr ? m : "";
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      return AsciiMessage(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib);
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      return AsciiMessage(static_cast<const nvtxRangeStartEx_params*>(params)->eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      return AsciiMessage(static_cast<const nvtxDomainRangePushEx_params*>(params)->core.eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      return AsciiMessage(static_cast<const nvtxDomainRangeStartEx_params*>(params)->core.eventAttrib);
    default:
      return {};
  }
}

// Push/pop stacks are per domain; the default domain is nullptr.
const void* RangeDomain(CUpti_CallbackId cbid, const void* params) {
  if (cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx) {
    return static_cast<const nvtxDomainRangePushEx_params*>(params)->domain;
  }
  if (cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop) return static_cast<const nvtxDomainRangePop_params*>(params)->domain;
  return nullptr;
}

constexpr std::array<CUpti_CallbackId, 10> kRangeCallbacks = {
    CUPTI_CBID_NVTX_nvtxRangeStartA,      CUPTI_CBID_NVTX_nvtxRangeStartEx,      CUPTI_CBID_NVTX_nvtxRangeEnd,
    CUPTI_CBID_NVTX_nvtxRangePushA,       CUPTI_CBID_NVTX_nvtxRangePushEx,       CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, CUPTI_CBID_NVTX_nvtxDomainRangeEnd, CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,
};

}  // namespace

CaptureGate::CaptureGate(std::chrono::milliseconds start_delay, std::string capture_range, OnChange on_change)
    : start_delay_(start_delay), capture_range_(std::move(capture_range)), on_change_(std::move(on_change)) {
  delay_elapsed_ = start_delay_.count() <= 0;
  capturing_ = capturing_at_start();
}

CaptureGate::~CaptureGate() { Stop(); }

std::span<const CUpti_CallbackId> CaptureGate::RangeCallbacks() { return kRangeCallbacks; }

Status CaptureGate::Start() {
  if (!delay_elapsed_) {
    delay_thread_ = std::thread([this] {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, start_delay_, [this] { return stopped_; })) return;
      delay_elapsed_ = true;
      Update();
    });
  }
  return OkStatus();
}

void CaptureGate::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  cv_.notify_all();
  if (delay_thread_.joinable()) delay_thread_.join();
}

void CaptureGate::OnNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (data == nullptr) return;
  OnRangeEvent(cbid, data->functionParams, data->functionReturnValue);
}

void CaptureGate::OnRangeEvent(CUpti_CallbackId cbid, const void* params, const void* return_value) {
  std::lock_guard lock(mu_);
  if (stopped_ || params == nullptr) return;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const bool capture = RangeText(cbid, params) == capture_range_;
      t_push_stacks[RangeDomain(cbid, params)].push_back(capture);
      if (capture) ++open_ranges_;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: {
      std::vector<bool>& stack = t_push_stacks[RangeDomain(cbid, params)];
      if (stack.empty()) break;  // a pop without a push: NVTX ignores it too
      if (stack.back()) --open_ranges_;
      stack.pop_back();
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
      // The id nvtxRangeStart returns is what nvtxRangeEnd will name.
      if (return_value == nullptr || RangeText(cbid, params) != capture_range_) break;
      if (open_start_ids_.insert(*static_cast<const nvtxRangeId_t*>(return_value)).second) ++open_ranges_;
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: {
      const nvtxRangeId_t id = cbid == CUPTI_CBID_NVTX_nvtxRangeEnd
                                   ? static_cast<const nvtxRangeEnd_params*>(params)->id
                                   : static_cast<const nvtxDomainRangeEnd_params*>(params)->core.id;
      if (open_start_ids_.erase(id) > 0) --open_ranges_;
      break;
    }
    default:
      break;
  }
  Update();
}

void CaptureGate::Update() {
  const bool capturing = !stopped_ && delay_elapsed_ && (capture_range_.empty() || open_ranges_ > 0);
  if (capturing == capturing_) return;
  capturing_ = capturing;
  on_change_(capturing);
}

}  // namespace nimble::collector
