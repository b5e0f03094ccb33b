// Strong integer ids: an OpId cannot be passed where a StreamId is expected.
// Each id wraps one integer; the default-constructed id is invalid (value -1).
// Plain values; no threading concerns.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace nimble {

template <typename Tag, typename Rep = int64_t>
class StrongId {
 public:
  using rep_type = Rep;
  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : value_(value) {}

  constexpr Rep value() const { return value_; }
  constexpr bool valid() const { return value_ != static_cast<Rep>(-1); }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;

 private:
  Rep value_ = static_cast<Rep>(-1);
};

using OpId = StrongId<struct OpIdTag, int32_t>;            // node of a model's op graph (dense, 0..n-1)
using StreamId = StrongId<struct StreamIdTag, int64_t>;    // CUDA stream as CUPTI reports it, or a planned stream
using DeviceId = StrongId<struct DeviceIdTag, int32_t>;    // CUDA device ordinal
using ContextId = StrongId<struct ContextIdTag, int64_t>;  // CUDA context id
using CorrelationId = StrongId<struct CorrelationIdTag, int64_t>;  // joins an API call to its GPU work
using ThreadId = StrongId<struct ThreadIdTag, int64_t>;    // host thread (OS tid)
using RunId = StrongId<struct RunIdTag, int64_t>;          // one profiling/acceleration run in a run.db
using StringId = StrongId<struct StringIdTag, int32_t>;    // index into a StringTable
using KernelIndex = StrongId<struct KernelIndexTag, int64_t>;  // position of a kernel in Trace::kernels

}  // namespace nimble

template <typename Tag, typename Rep>
struct std::hash<nimble::StrongId<Tag, Rep>> {
  size_t operator()(nimble::StrongId<Tag, Rep> id) const noexcept { return std::hash<Rep>{}(id.value()); }
};
