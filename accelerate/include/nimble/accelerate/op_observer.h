// What a caller sees of an eager run, op by op: the EagerRunner calls OnOpBegin before the first node
// it runs for an op and OnOpEnd after the last, so GPU work launched in between belongs to that op.
// Brackets never nest or overlap; within one iteration they come in op order, each op exactly once.
// Called on the thread that runs the iteration; implementations need no locking of their own.
#pragma once

#include "nimble/core/ids.h"

namespace nimble::accelerate {

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void OnOpBegin(OpId op) = 0;
  virtual void OnOpEnd(OpId op) = 0;
};

}  // namespace nimble::accelerate
