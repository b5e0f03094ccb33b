// Turns failed CUPTI and CUDA driver calls into Status values that name the call and CUPTI's or the
// driver's own words for the error. Private to the collector.
#pragma once

#include <cupti.h>

#include <string>

#include "nimble/core/status.h"

namespace nimble::collector {

// "cuptiActivityEnable(kind) failed: CUPTI_ERROR_NOT_INITIALIZED"; privilege and availability
// problems map to kUnavailable (the program then runs unprofiled), the rest to kInternal.
Status CuptiError(CUptiResult result, const char* call_text);

}  // namespace nimble::collector

#define NIMBLE_CUPTI_RETURN_IF_ERROR(call)                                   \
  do {                                                                       \
    const CUptiResult nimble_cupti_result_ = (call);                         \
    if (nimble_cupti_result_ != CUPTI_SUCCESS)                               \
      return ::nimble::collector::CuptiError(nimble_cupti_result_, #call);   \
  } while (0)
