#include "kineto_sax.h"

#include <istream>
#include <limits>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kineto_fields.h"
#include "micros_text.h"

namespace nimble::workflow {
namespace {

enum class Ctx : uint8_t { kTopObject, kEvents, kEvent, kArgs, kDims, kDevices, kDevice, kSkip };

// What the value after the current key (or the next array element) is read into.
enum class SlotKind : uint8_t { kIgnore, kInt, kTime, kText, kDims, kArgs, kEvents, kDevices, kBaseTime };

struct Slot {
  SlotKind kind = SlotKind::kIgnore;
  IntField* i = nullptr;
  TextField* t = nullptr;
  DimField* d = nullptr;
};

using kineto_fields::Find;
using kineto_fields::kArgKeys;
using kineto_fields::kDeviceKeys;
using kineto_fields::kEventKeys;
using kineto_fields::ParseIntegerText;

void Wrong(IntField* f, const char* got) {
  if (f == nullptr) return;
  f->state = FieldState::kWrongType;
  f->got = got;
}

class KinetoSax {
 public:
  // `buf`: the file being read, for positions in messages; null for a chunk of events in memory.
  KinetoSax(TraceFileBuf* buf, const std::string& path, KinetoEventSink& sink, int64_t first_index)
      : buf_(buf), path_(path), sink_(sink), events_(first_index) {
    stack_.reserve(64);
  }

  const Status& status() const { return status_; }
  int64_t events() const { return events_; }
  bool saw_events() const { return saw_events_; }

  bool null() { return Scalar("null"); }
  bool boolean(bool) { return Scalar("true or false"); }
  bool number_integer(int64_t v) { return Integer(v); }
  bool number_unsigned(uint64_t v) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Scalar("a number out of range");
    return Integer(static_cast<int64_t>(v));
  }
  bool number_float(double v, const std::string& text);
  bool string(std::string& s);
  bool binary(nlohmann::json::binary_t&) { return Scalar("binary data"); }
  bool start_object(size_t);
  bool end_object() { return End(); }
  bool start_array(size_t);
  bool end_array() { return End(); }
  bool key(std::string& k);
  bool parse_error(size_t, const std::string& last_token, const nlohmann::detail::exception& ex);

 private:
  Ctx top() const { return stack_.empty() ? Ctx::kSkip : stack_.back(); }
  // The slot of a value that has no key: an element of an array.
  Slot ArraySlot();
  bool Fail(const std::string& what) {
    if (status_.ok()) status_ = DataLoss(path_ + ": " + what + (buf_ != nullptr ? " (at " + buf_->Where() + ")" : ""));
    return false;
  }
  int64_t Offset() const { return buf_ != nullptr ? buf_->offset() : 0; }
  bool Integer(int64_t v);
  bool Scalar(const char* got);  // a value that is neither a number nor a string
  bool WrongContainer(const char* got);
  bool End();

  TraceFileBuf* buf_;
  const std::string& path_;
  KinetoEventSink& sink_;
  std::vector<Ctx> stack_;
  Slot slot_;
  KinetoEvent event_;
  KinetoDevice device_;
  int64_t events_ = 0;
  int64_t devices_ = 0;
  bool saw_events_ = false;
  Status status_;
};

Slot KinetoSax::ArraySlot() {
  switch (top()) {
    case Ctx::kDims: return Slot{SlotKind::kDims};
    case Ctx::kSkip: return Slot{};
    default: return slot_;
  }
}

bool KinetoSax::key(std::string& k) {
  // Keys inside a skipped value must leave the slot alone: it still belongs to the value being skipped
  // (e.g. the DimField of "grid": [1, {"x": 2}]).
  if (top() == Ctx::kSkip) return true;
  slot_ = Slot{};
  switch (top()) {
    case Ctx::kTopObject:
      if (k == "traceEvents") slot_.kind = SlotKind::kEvents;
      else if (k == "deviceProperties") slot_.kind = SlotKind::kDevices;
      else if (k == "baseTimeNanoseconds") slot_.kind = SlotKind::kBaseTime;
      return true;
    case Ctx::kEvent: {
      KinetoEvent& e = event_;
      switch (Find(kEventKeys, k)) {
        case 0: slot_ = {SlotKind::kText, nullptr, &e.ph}; break;
        case 1: slot_ = {SlotKind::kText, nullptr, &e.cat}; break;
        case 2: slot_ = {SlotKind::kText, nullptr, &e.name}; break;
        case 3: slot_ = {SlotKind::kInt, &e.pid}; break;
        case 4: slot_ = {SlotKind::kInt, &e.tid}; break;
        case 5: slot_ = {SlotKind::kTime, &e.ts_ns}; break;
        case 6: slot_ = {SlotKind::kTime, &e.dur_ns}; break;
        case 7: slot_ = {SlotKind::kInt, &e.id}; break;
        case 8: slot_ = {SlotKind::kText, nullptr, &e.bp}; break;
        case 9: slot_.kind = SlotKind::kArgs; break;
        default: break;
      }
      return true;
    }
    case Ctx::kArgs: {
      KinetoEvent& e = event_;
      const int at = Find(kArgKeys, k);
      if (at == kineto_fields::kArgGrid || at == kineto_fields::kArgBlock) {
        slot_ = {SlotKind::kDims, nullptr, nullptr, at == kineto_fields::kArgGrid ? &e.grid : &e.block};
      } else if (at == kineto_fields::kArgSyncKind) {
        slot_ = {SlotKind::kText, nullptr, &e.sync_kind};
      } else if (at >= 0) {
        slot_ = {SlotKind::kInt, kineto_fields::ArgInt(e, at)};
      }
      return true;
    }
    case Ctx::kDevice: {
      KinetoDevice& d = device_;
      const int at = Find(kDeviceKeys, k);
      if (at == kineto_fields::kDeviceName) slot_ = {SlotKind::kText, nullptr, &d.name};
      else if (at >= 0) slot_ = {SlotKind::kInt, kineto_fields::DeviceInt(d, at)};
      return true;
    }
    default: return true;
  }
}

bool KinetoSax::Integer(int64_t v) {
  const Slot s = ArraySlot();
  switch (s.kind) {
    case SlotKind::kInt:
      s.i->value = v;
      s.i->state = FieldState::kSet;
      return true;
    case SlotKind::kTime:
      if (auto ns = MicrosToNs(v)) {
        s.i->value = *ns;
        s.i->state = FieldState::kSet;
      } else {
        Wrong(s.i, "a time out of range");
      }
      return true;
    case SlotKind::kDims: {
      DimField* d = slot_.d;
      if (top() != Ctx::kDims) {  // "grid": 5
        d->state = FieldState::kWrongType, d->got = "a number";
        return true;
      }
      const int32_t c = static_cast<int32_t>(v);
      if (d->count < 3 && v >= 0 && v == c) {
        (d->count == 0 ? d->value.x : d->count == 1 ? d->value.y : d->value.z) = c;
      } else {
        d->state = FieldState::kWrongType, d->got = "an array with a bad element";
      }
      ++d->count;
      return true;
    }
    case SlotKind::kBaseTime:
      sink_.OnBaseTime(v);
      return true;
    default: return Scalar("a number");
  }
}

bool KinetoSax::number_float(double v, const std::string& text) {
  const Slot s = ArraySlot();
  if (s.kind == SlotKind::kTime) {
    if (auto ns = MicrosTextToNs(text)) {
      s.i->value = *ns;
      s.i->state = FieldState::kSet;
    } else {
      Wrong(s.i, "a time out of range");
    }
    return true;
  }
  if (kineto_fields::Integral(v)) return Integer(static_cast<int64_t>(v));
  return Scalar("a fractional number");
}

bool KinetoSax::string(std::string& str) {
  const Slot s = ArraySlot();
  if (s.kind == SlotKind::kText) {
    s.t->value.assign(str);
    s.t->state = FieldState::kSet;
    return true;
  }
  int64_t v = 0;
  if (s.kind == SlotKind::kInt && ParseIntegerText(str, v)) return Integer(v);
  return Scalar("a string");
}

bool KinetoSax::Scalar(const char* got) {
  const Slot s = ArraySlot();
  switch (s.kind) {
    case SlotKind::kInt:
    case SlotKind::kTime: Wrong(s.i, got); return true;
    case SlotKind::kText:
      s.t->state = FieldState::kWrongType;
      s.t->got = got;
      return true;
    case SlotKind::kDims:
      if (top() == Ctx::kDims) {
        slot_.d->state = FieldState::kWrongType, slot_.d->got = "an array with a bad element";
        ++slot_.d->count;
      } else if (slot_.d != nullptr) {
        slot_.d->state = FieldState::kWrongType, slot_.d->got = got;
      }
      return true;
    case SlotKind::kEvents:
      if (top() == Ctx::kEvents) return Fail("traceEvents[" + std::to_string(events_) + "] is " + got + ", not an event object");
      return Fail("\"traceEvents\" is " + std::string(got) + ", not an array of events");
    case SlotKind::kDevices:
      if (top() == Ctx::kDevices) return Fail("deviceProperties[" + std::to_string(devices_) + "] is " + got + ", not an object");
      return Fail("\"deviceProperties\" is " + std::string(got) + ", not an array");
    case SlotKind::kBaseTime: return Fail("\"baseTimeNanoseconds\" is " + std::string(got) + ", not an integer");
    default:
      if (stack_.empty()) return Fail(std::string("the file holds ") + got + ", not a trace (a JSON object or array)");
      return true;
  }
}

bool KinetoSax::WrongContainer(const char* got) {
  // The slot expected a scalar: record the type, then skip the container.
  if (!Scalar(got)) return false;
  stack_.push_back(Ctx::kSkip);
  return true;
}

bool KinetoSax::start_object(size_t) {
  if (stack_.empty()) {
    stack_.push_back(Ctx::kTopObject);
    return true;
  }
  const Ctx ctx = top();
  if (ctx == Ctx::kEvents) {
    event_.Clear();
    event_.index = events_;
    event_.offset = Offset() - 1;
    stack_.push_back(Ctx::kEvent);
    return true;
  }
  if (ctx == Ctx::kDevices) {
    device_ = KinetoDevice{};
    device_.index = devices_;
    device_.offset = Offset() - 1;
    stack_.push_back(Ctx::kDevice);
    return true;
  }
  if (ctx == Ctx::kEvent && slot_.kind == SlotKind::kArgs) {
    stack_.push_back(Ctx::kArgs);
    return true;
  }
  if (ctx == Ctx::kSkip || slot_.kind == SlotKind::kIgnore) {
    stack_.push_back(Ctx::kSkip);
    return true;
  }
  return WrongContainer("an object");
}

bool KinetoSax::start_array(size_t) {
  if (stack_.empty()) {  // a bare array of events is a Chrome trace too
    saw_events_ = true;
    slot_.kind = SlotKind::kEvents;
    stack_.push_back(Ctx::kEvents);
    return true;
  }
  const Ctx ctx = top();
  if (ctx == Ctx::kTopObject && slot_.kind == SlotKind::kEvents) {
    saw_events_ = true;
    stack_.push_back(Ctx::kEvents);
    return true;
  }
  if (ctx == Ctx::kTopObject && slot_.kind == SlotKind::kDevices) {
    stack_.push_back(Ctx::kDevices);
    return true;
  }
  if (ctx == Ctx::kArgs && slot_.kind == SlotKind::kDims) {
    stack_.push_back(Ctx::kDims);
    return true;
  }
  if (ctx == Ctx::kSkip || ctx == Ctx::kDims || slot_.kind == SlotKind::kIgnore) {
    if (ctx == Ctx::kDims) Scalar("an array");
    stack_.push_back(Ctx::kSkip);
    return true;
  }
  return WrongContainer("an array");
}

bool KinetoSax::End() {
  const Ctx ctx = top();
  stack_.pop_back();
  switch (ctx) {
    case Ctx::kEvent: {
      ++events_;
      slot_.kind = SlotKind::kEvents;
      const Status s = sink_.OnEvent(event_);
      if (!s.ok()) {
        status_ = s;
        return false;
      }
      return true;
    }
    case Ctx::kDevice: {
      ++devices_;
      slot_.kind = SlotKind::kDevices;
      const Status s = sink_.OnDevice(device_);
      if (!s.ok()) {
        status_ = s;
        return false;
      }
      return true;
    }
    case Ctx::kDims: {
      DimField* d = slot_.d;
      if (d != nullptr && d->state != FieldState::kWrongType) {
        if (d->count >= 1 && d->count <= 3) d->state = FieldState::kSet;
        else d->state = FieldState::kWrongType, d->got = "an array without 1 to 3 elements";
      }
      slot_ = Slot{};
      return true;
    }
    case Ctx::kArgs: slot_ = Slot{}; return true;
    case Ctx::kEvents:
    case Ctx::kDevices: slot_ = Slot{}; return true;
    default: return true;
  }
}

bool KinetoSax::parse_error(size_t, const std::string&, const nlohmann::detail::exception& ex) {
  if (buf_ != nullptr && !buf_->error().ok()) {  // the text ended because the file could not be read or inflated
    status_ = buf_->error();
    return false;
  }
  std::string what = ex.what();
  const size_t detail = what.find("syntax error");
  if (detail != std::string::npos) what = what.substr(detail);
  const bool ended = what.find("end of input") != std::string::npos;
  if (ended && buf_ != nullptr && buf_->offset() == 0) {
    return Fail(buf_->gzip() ? "the decompressed text is empty" : "the file is empty");
  }
  if (ended) return Fail("the JSON ends early (truncated file?): " + what);
  return Fail("not valid JSON: " + what);
}

}  // namespace

StatusOr<int64_t> ReadKinetoEvents(TraceFileBuf& buf, const std::string& path, KinetoEventSink& sink) {
  std::istream in(&buf);
  KinetoSax sax(&buf, path, sink, 0);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(in, &sax, nlohmann::json::input_format_t::json, /*strict=*/true);
  } catch (const std::exception& e) {
    return DataLoss(path + ": cannot be read as JSON: " + e.what());
  }
  if (!sax.status().ok()) return sax.status();
  if (!buf.error().ok()) return buf.error();
  if (!ok) return DataLoss(path + ": not valid JSON (at " + buf.Where() + ")");
  if (!sax.saw_events()) {
    return DataLoss(path + ": no \"traceEvents\" array: not a Chrome trace (torch.profiler's export_chrome_trace "
                           "writes one)");
  }
  return sax.events();
}

}  // namespace nimble::workflow
