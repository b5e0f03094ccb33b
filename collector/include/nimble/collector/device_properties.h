// Device properties (SM count and per-SM limits) read through the CUDA driver of the running process,
// so that the run database can say how much of the GPU a kernel occupied. The driver is looked up in
// the already loaded libcuda (never loaded, never linked): code that only converts records needs none.
// Thread-safe; call it after the program initialised CUDA (at session stop).
#pragma once

#include <string>
#include <vector>

#include "nimble/core/activity.h"
#include "nimble/core/status.h"

namespace nimble::collector {

// A device's properties plus its name (DeviceInfo::name is interned later, by the pipeline).
struct DeviceDescription {
  DeviceInfo info;
  std::string name;
};

// Every device the driver sees. Unavailable when libcuda is not loaded in this process.
StatusOr<std::vector<DeviceDescription>> ReadDeviceProperties();

}  // namespace nimble::collector
