// Everything recorded in one run: activity records with their interned strings and the devices.
// A Trace is a value: build it single-threaded, then share it read-only.
#pragma once

#include <vector>

#include "nimble/core/activity.h"
#include "nimble/core/activity_records.h"
#include "nimble/core/string_table.h"

namespace nimble {

struct Trace : ActivityRecords {
  StringTable strings;
  std::vector<DeviceInfo> devices;
};

}  // namespace nimble
