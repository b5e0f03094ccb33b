#include "nimble/collector/buffer_pool.h"

#include <algorithm>
#include <cstdlib>

#include "nimble/collector/cupti_records.h"

namespace nimble::collector {

BufferPool::BufferPool(size_t buffer_bytes, int32_t max_buffers)
    // aligned_alloc needs a size that is a multiple of the alignment.
    : buffer_bytes_((std::max<size_t>(buffer_bytes, 4096) + kRecordAlignment - 1) / kRecordAlignment *
                    kRecordAlignment),
      max_buffers_(std::max(max_buffers, 1)) {}

BufferPool::~BufferPool() {
  // Buffers still outstanding belong to CUPTI, which may yet write to them: they are not freed here.
  for (uint8_t* b : free_) std::free(b);
}

uint8_t* BufferPool::Acquire() {
  std::lock_guard lock(mu_);
  if (outstanding_ >= max_buffers_) {
    ++refused_;
    return nullptr;
  }
  uint8_t* buffer = nullptr;
  if (!free_.empty()) {
    buffer = free_.back();
    free_.pop_back();
  } else {
    buffer = static_cast<uint8_t*>(std::aligned_alloc(kRecordAlignment, buffer_bytes_));
    if (buffer == nullptr) {
      ++refused_;
      return nullptr;
    }
  }
  ++outstanding_;
  peak_outstanding_ = std::max(peak_outstanding_, outstanding_);
  return buffer;
}

void BufferPool::Release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::lock_guard lock(mu_);
  free_.push_back(buffer);
  --outstanding_;
}

int64_t BufferPool::refused() const {
  std::lock_guard lock(mu_);
  return refused_;
}

int64_t BufferPool::outstanding() const {
  std::lock_guard lock(mu_);
  return outstanding_;
}

int64_t BufferPool::peak_outstanding() const {
  std::lock_guard lock(mu_);
  return peak_outstanding_;
}

}  // namespace nimble::collector
