// Model profiling's op brackets: pushes op id + 1 as the external correlation id around each op's
// nodes and notes the op's host bracket on the records' clock. Private to the workflow; one thread.
#pragma once

#include <vector>

#include "nimble/accelerate/op_observer.h"
#include "nimble/analysis/op_attribution.h"
#include "nimble/collector/in_process_session.h"

namespace nimble::workflow {

class BracketRecorder : public accelerate::OpObserver {
 public:
  BracketRecorder(collector::InProcessSession& session, ThreadId thread) : session_(session), thread_(thread) {}
  void OnOpBegin(OpId op) override {
    Note(session_.PushExternalId(static_cast<uint64_t>(op.value()) + 1));
    begin_ns_ = Now();
  }
  void OnOpEnd(OpId op) override {
    const int64_t end_ns = Now();
    Note(session_.PopExternalId());
    brackets_.push_back(analysis::OpBracket{op, thread_, begin_ns_, end_ns});
  }
  int64_t Now() {
    auto now = session_.NowNs();
    Note(now.status());
    return now.ok() ? *now : 0;
  }
  // The first failure of the collector calls, if any.
  const Status& status() const { return status_; }
  std::vector<analysis::OpBracket>& brackets() { return brackets_; }

 private:
  void Note(const Status& s) {
    if (status_.ok() && !s.ok()) status_ = s;
  }
  collector::InProcessSession& session_;
  ThreadId thread_;
  int64_t begin_ns_ = 0;
  std::vector<analysis::OpBracket> brackets_;
  Status status_;
};

}  // namespace nimble::workflow
