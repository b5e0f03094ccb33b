// Ends badly on purpose after launching (and finishing) a known number of kernels, so that the
// collector's flush at exit and on fatal signals can be tested:
//   early_exit [--kernels 5] [--how exit|abort|segv|term] [--code 3]
// exit: exit(code) from inside a helper, as a program bailing out early; abort: abort();
// segv: a null write; term: raise(SIGTERM).
#include <csignal>
#include <cstring>

#include "sample_common.cuh"

namespace {

[[noreturn]] void EndBadly(const char* how, int code) {
  std::fflush(stdout);
  if (std::strcmp(how, "abort") == 0) std::abort();
  if (std::strcmp(how, "segv") == 0) {
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;
  }
  if (std::strcmp(how, "term") == 0) std::raise(SIGTERM);
  std::exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  const int kernels = static_cast<int>(IntFlag(argc, argv, "--kernels", 5));
  const char* how = StringFlag(argc, argv, "--how", "exit");
  const int code = static_cast<int>(IntFlag(argc, argv, "--code", 3));
  cudaStream_t s;
  SAMPLE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int i = 0; i < kernels; ++i) {
    SpinKernel<<<1, 32, 0, s>>>(20 * 1000);
    SAMPLE_CHECK_LAUNCH();
  }
  SAMPLE_CHECK(cudaStreamSynchronize(s));
  std::printf("early_exit: kernels=%d how=%s code=%d\n", kernels, how, code);
  EndBadly(how, code);
}
