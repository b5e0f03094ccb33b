// One event of a Chrome-format trace (torch.profiler / Kineto) and one entry of its deviceProperties, as
// the streaming collector hands them over: only the fields Nimble reads, each absent, set, or of the
// wrong JSON type (kept as such, so that a converter that needs the field can say which and why, while
// one that does not never fails on it). Times are already nanoseconds. Plain values, reused per event.
#pragma once

#include <cstdint>
#include <string>

#include "nimble/core/activity.h"

namespace nimble::workflow {

enum class FieldState : uint8_t { kAbsent, kSet, kWrongType };

struct IntField {
  int64_t value = 0;
  FieldState state = FieldState::kAbsent;
  const char* got = "";  // the JSON value found, for kWrongType ("a string", "an object", ...)
  bool set() const { return state == FieldState::kSet; }
};

struct TextField {
  std::string value;
  FieldState state = FieldState::kAbsent;
  const char* got = "";
  bool set() const { return state == FieldState::kSet; }
};

// "grid" and "block": [x, y, z].
struct DimField {
  Dim3 value;
  int count = 0;  // elements read
  FieldState state = FieldState::kAbsent;
  const char* got = "";
  bool set() const { return state == FieldState::kSet; }
};

struct KinetoEvent {
  int64_t index = 0;   // position in traceEvents
  int64_t offset = 0;  // the byte of the text where its object starts
  TextField ph, cat, name, bp;
  IntField pid, tid, ts_ns, dur_ns, id;
  // args
  IntField device, context, stream, correlation, registers_per_thread, shared_memory, graph_node_id, graph_id,
      external_id, cbid, bytes, wait_event_id, in_device;
  DimField grid, block;
  TextField sync_kind;

  // Back to absent, keeping the strings' capacity.
  void Clear() {
    for (TextField* t : {&ph, &cat, &name, &bp, &sync_kind}) {
      t->value.clear();
      t->state = FieldState::kAbsent;
    }
    for (IntField* f : {&pid, &tid, &ts_ns, &dur_ns, &id, &device, &context, &stream, &correlation,
                        &registers_per_thread, &shared_memory, &graph_node_id, &graph_id, &external_id, &cbid,
                        &bytes, &wait_event_id, &in_device}) {
      *f = IntField{};
    }
    grid = DimField{};
    block = DimField{};
  }
};

// One entry of "deviceProperties" (CUDA's cudaDeviceProp, as Kineto writes it).
struct KinetoDevice {
  int64_t index = 0;
  int64_t offset = 0;
  TextField name;
  IntField id, total_global_mem, compute_major, compute_minor, max_threads_per_block, max_threads_per_sm,
      regs_per_sm, shared_per_sm, num_sms;
};

}  // namespace nimble::workflow
