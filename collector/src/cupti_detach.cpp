#include "cupti_detach.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>

#include "cupti_check.h"

namespace nimble::collector {
namespace {

constexpr const char* kStat = "collector.cupti_left_attached";

// One detach at a time; the callback may run on another thread that makes a driver call first.
std::mutex g_detach_mu;
std::condition_variable g_detach_cv;
bool g_requested = false;  // a detach waits for the next driver call's exit
bool g_done = false;
CUptiResult g_result = CUPTI_SUCCESS;

void CUPTIAPI FinalizeAtExit(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  {
    std::lock_guard lock(g_detach_mu);
    if (!g_requested) return;
    g_requested = false;
  }
  const CUptiResult r = cuptiFinalize();  // also drops this subscriber
  {
    std::lock_guard lock(g_detach_mu);
    g_done = true;
    g_result = r;
  }
  g_detach_cv.notify_all();
}

StatEntry StillAttached(const std::string& why) {
  return StatEntry{kStat, 1, Severity::kWarning,
                   "CUPTI stays attached to the process after the session, which can slow its later CUDA work: " + why};
}

// The trigger: cuCtxGetCurrent from the program's own driver (the collector never loads one).
using CtxGetCurrent = CUresult (*)(CUcontext*);
CtxGetCurrent FindTrigger() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  auto fn = reinterpret_cast<CtxGetCurrent>(dlsym(lib, "cuCtxGetCurrent"));
  dlclose(lib);  // the program's own reference keeps the driver mapped
  return fn;
}

}  // namespace

StatEntry DetachCupti() {
  if (const char* env = std::getenv("NIMBLE_CUPTI_DETACH"); env != nullptr && std::string_view(env) == "0") {
    return StatEntry{kStat, 1, Severity::kInfo, "CUPTI stays attached to the process after the session (NIMBLE_CUPTI_DETACH=0)"};
  }
  const CtxGetCurrent trigger = FindTrigger();
  if (trigger == nullptr) return StillAttached("the CUDA driver is not loaded in this process");
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult r = cuptiSubscribe(&subscriber, &FinalizeAtExit, nullptr); r != CUPTI_SUCCESS) {
    return StillAttached(CuptiError(r, "cuptiSubscribe(detach)").message());
  }
  if (CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                          CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
      r != CUPTI_SUCCESS) {
    (void)cuptiUnsubscribe(subscriber);
    return StillAttached(CuptiError(r, "cuptiEnableCallback(cuCtxGetCurrent)").message());
  }
  {
    std::lock_guard lock(g_detach_mu);
    g_requested = true;
    g_done = false;
  }
  CUcontext current = nullptr;
  const CUresult called = trigger(&current);  // its exit callback finalizes, here or on a thread that called first
  std::unique_lock lock(g_detach_mu);
  if (g_requested) {  // the callback runs before the call returns: none took the request, so none will
    g_requested = false;
    lock.unlock();
    (void)cuptiUnsubscribe(subscriber);  // best effort: CUPTI stays attached either way
    return StillAttached("the driver call cuCtxGetCurrent (result " + std::to_string(static_cast<int>(called)) +
                         ") did not reach the detach callback");
  }
  if (!g_detach_cv.wait_for(lock, std::chrono::seconds(30), [] { return g_done; })) {
    return StillAttached("cuptiFinalize, called on another thread, did not return within 30 s");
  }
  if (g_result != CUPTI_SUCCESS) {
    lock.unlock();
    const CUptiResult r = cuptiUnsubscribe(subscriber);  // the single subscriber slot must not stay taken
    return StillAttached(CuptiError(g_result, "cuptiFinalize()").message() +
                         (r == CUPTI_SUCCESS ? "" : "; " + CuptiError(r, "cuptiUnsubscribe(detach)").message()));
  }
  return StatEntry{kStat, 0, Severity::kInfo, "CUPTI detached from the process after the session (cuptiFinalize)"};
}

}  // namespace nimble::collector
