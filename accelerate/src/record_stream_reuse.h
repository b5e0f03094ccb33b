// Lets the caching allocator reuse, within a capture, a block freed while another stream still had a
// recorded use of it, once the capture's own dependencies order that use before the new one (PyTorch's
// graph_capture_record_stream_reuse). The rewrite frees values that crossed streams after their last
// reader this way where no release point exists on the producer's stream (stream_rewrite.h); without
// the setting they would wait for the capture's end.
#pragma once

#include <string>

namespace nimble::accelerate {

// On for the scope's life, unless the process's allocator settings (the environment, or a settings
// string the process set) name the key: then they decide. The scope leaves the process's settings
// behind with ",graph_capture_record_stream_reuse:False" added (the parser keeps a key a string does not
// name), and a later scope knows that string for its own (a process that sets exactly that string
// itself is taken for it), so every capture of a process gets the setting, not only the first, and none
// after the scope. Process-wide, like the
// allocator: captures run one at a time (AotGraph is not thread-safe).
class RecordStreamReuseScope {
 public:
  RecordStreamReuseScope();
  ~RecordStreamReuseScope();
  RecordStreamReuseScope(const RecordStreamReuseScope&) = delete;
  RecordStreamReuseScope& operator=(const RecordStreamReuseScope&) = delete;

  // Whether the allocator reuses such blocks now.
  static bool Active();

 private:
  std::string previous_;
  bool set_here_ = false;
};

}  // namespace nimble::accelerate
