// For the standalone diagnostics in this folder: the SM a block runs on, and the device's global
// nanosecond clock, to place and time blocks from inside a kernel.
#pragma once

__device__ inline unsigned SmId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ inline unsigned long long GlobalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
