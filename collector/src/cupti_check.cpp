#include "cupti_check.h"

namespace nimble::collector {

Status CuptiError(CUptiResult result, const char* call_text) {
  const char* text = nullptr;
  std::string reason = cuptiGetResultString(result, &text) == CUPTI_SUCCESS && text != nullptr
                           ? std::string(text)
                           : "CUPTI error " + std::to_string(static_cast<int>(result));
  std::string message = std::string(call_text) + " failed: " + reason;
  switch (result) {
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_DISABLED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return Unavailable(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

}  // namespace nimble::collector
