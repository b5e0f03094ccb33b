// A stand-in for a program the CUDA driver injects into: loads libnimble_inject.so (argv[1]) and
// calls InitializeInjection as the driver would, then exits normally. Lets tests see what the
// library does where CUPTI cannot start (no driver) without needing a GPU.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: inject_host path/to/libnimble_inject.so\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "inject_host: %s\n", dlerror());
    return 2;
  }
  auto* initialize = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  if (initialize == nullptr) {
    std::fprintf(stderr, "inject_host: no InitializeInjection in %s\n", argv[1]);
    return 2;
  }
  std::printf("inject_host: InitializeInjection returned %d\n", initialize());
  return 0;  // never dlclose: the library (and CUPTI) must stay loaded until exit
}
