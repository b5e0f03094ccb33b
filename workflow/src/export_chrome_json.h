// Writes Chrome Trace Event Format JSON straight into the output file, one event at a time, never a DOM
// of the whole trace: strings escaped (bytes that are not UTF-8 become U+FFFD), times written as
// microseconds after a base time with the nanoseconds kept as three decimals, so that a consumer parsing
// doubles reads every nanosecond back. Fields of one event are appended between BeginEvent and EndEvent.
// One thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "export_chrome_output.h"
#include "nimble/core/activity.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

// `s` as a JSON string literal, quotes included.
void AppendJsonString(std::string& out, std::string_view s);
// `ns` nanoseconds as microseconds with three decimals ("1234.005", "-0.250").
void AppendMicros(std::string& out, int64_t ns);

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(ChromeOutputFile& out, int64_t base_time_ns) : out_(out), base_time_ns_(base_time_ns) {}

  // Opens the top-level object with `header`'s fields (which come before "traceEvents", where streaming
  // readers look for them) and the event array.
  Status Begin(const nlohmann::json& header);
  void BeginEvent(char phase);
  void Str(std::string_view key, std::string_view value);
  void Int(std::string_view key, int64_t value);
  void Bool(std::string_view key, bool value);
  void Dims(std::string_view key, const Dim3& dims);
  void Timestamp(int64_t ns);   // "ts": `ns` on the records' clock, written after the base time
  void Duration(int64_t dur_ns);  // "dur"
  void BeginArgs();
  void EndArgs();
  Status EndEvent();
  // Closes the array and the object and hands every byte to the file.
  Status Finish();

  int64_t events() const { return events_; }

 private:
  void Key(std::string_view key);
  Status FlushIfLarge();

  ChromeOutputFile& out_;
  int64_t base_time_ns_;
  std::string buffer_;
  bool first_field_ = true;
  int64_t events_ = 0;
};

}  // namespace nimble::workflow
