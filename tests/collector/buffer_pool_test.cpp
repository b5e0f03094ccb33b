// BufferPool: aligned buffers, reuse, the cap that refuses (and counts) instead of growing, and
// concurrent use from several threads as CUPTI does.
#include "nimble/collector/buffer_pool.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "nimble/collector/cupti_records.h"

namespace nimble::collector {
namespace {

TEST(BufferPoolTest, RefusesAtTheCapAndReuses) {
  BufferPool pool(1 << 16, 2);
  uint8_t* a = pool.Acquire();
  uint8_t* b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % kRecordAlignment, 0u);
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.refused(), 1);
  pool.Release(a);
  EXPECT_EQ(pool.Acquire(), a);  // recycled, not reallocated
  EXPECT_EQ(pool.peak_outstanding(), 2);
  pool.Release(a);
  pool.Release(b);
  EXPECT_EQ(pool.outstanding(), 0);
}

TEST(BufferPoolTest, RoundsSizesToTheRecordAlignment) {
  BufferPool pool(5000, 1);
  EXPECT_EQ(pool.buffer_bytes() % kRecordAlignment, 0u);
  EXPECT_GE(pool.buffer_bytes(), 5000u);
}

TEST(BufferPoolTest, ConcurrentAcquireAndReleaseStayWithinTheCap) {
  BufferPool pool(4096, 8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool] {
      for (int i = 0; i < 2000; ++i) {
        if (uint8_t* b = pool.Acquire()) {
          b[0] = 1;
          pool.Release(b);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(pool.peak_outstanding(), 8);
  EXPECT_EQ(pool.outstanding(), 0);
}

}  // namespace
}  // namespace nimble::collector
