// Which operator a run was executing when it threw: the interpreter's traceback gives the source
// line, this gives the operator ("aten::nonzero", "nimble::join_streams"). A thread-local
// RecordFunction callback notes each operator that exits by an exception; an operator that returns
// normally clears the note, so one that failed inside and recovered is not blamed. Outermost wins
// (aten::conv2d rather than the aten::_convolution it called). Thread-affine: create, run and read
// on one thread; trackers may nest.
#pragma once

#include <cstdint>
#include <string>

namespace nimble::accelerate {

class FailedOpTracker {
 public:
  FailedOpTracker();
  ~FailedOpTracker();
  FailedOpTracker(const FailedOpTracker&) = delete;
  FailedOpTracker& operator=(const FailedOpTracker&) = delete;

  // The qualified name of the operator that threw, or "" when no operator was running then.
  const std::string& op() const { return failed_op_; }

 private:
  uint64_t handle_ = 0;
  FailedOpTracker* previous_ = nullptr;
  std::string failed_op_;

  friend struct FailedOpCallbacks;
};

}  // namespace nimble::accelerate
