// The values CaptureOptions::smem_carveout takes: a percentage of the most shared memory an SM offers,
// asked for on a captured graph's kernel nodes that use no shared memory, or kKeepCarveout. What it does
// and why: accelerate/src/smem_carveout.h.
#pragma once

#include <cstdint>

namespace nimble::accelerate {

// Leave each kernel's carveout to its function and the driver.
inline constexpr int32_t kKeepCarveout = -1;

}  // namespace nimble::accelerate
