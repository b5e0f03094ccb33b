#include "command.h"

#include <iostream>

namespace nimble::cli {

int ReportError(const Status& status) {
  std::cerr << "nimble-prof: error: " << status.message() << "\n";
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

}  // namespace nimble::cli
