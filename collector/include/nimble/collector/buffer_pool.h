// The activity buffers CUPTI fills: fixed-size, aligned, recycled, and capped. When the cap of
// outstanding buffers is reached a request is refused (CUPTI then drops records and counts them),
// so a stalled writer costs bounded memory, never an unbounded queue.
// Thread-safe: CUPTI requests buffers from application threads and returns them on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace nimble::collector {

class BufferPool {
 public:
  BufferPool(size_t buffer_bytes, int32_t max_buffers);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A buffer of buffer_bytes(), or nullptr (counted in refused()) when max_buffers are out.
  uint8_t* Acquire();
  // Gives back a buffer from Acquire() for reuse.
  void Release(uint8_t* buffer);

  size_t buffer_bytes() const { return buffer_bytes_; }
  int64_t refused() const;
  int64_t outstanding() const;
  int64_t peak_outstanding() const;

 private:
  const size_t buffer_bytes_;
  const int32_t max_buffers_;
  mutable std::mutex mu_;
  std::vector<uint8_t*> free_;
  int64_t outstanding_ = 0;
  int64_t peak_outstanding_ = 0;
  int64_t refused_ = 0;
};

}  // namespace nimble::collector
