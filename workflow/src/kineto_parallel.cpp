#include "kineto_parallel.h"

#include <deque>
#include <future>
#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "kineto_sax.h"
#include "trace_file_buf.h"

namespace nimble::workflow {
namespace {

// Measured on a 600 MiB trace: large enough that starting a worker per chunk costs nothing, small
// enough that a few chunks in flight stay a few tens of MiB.
constexpr size_t kChunkBytes = size_t{4} << 20;

// Reads the text in blocks and copies JSON values by their brackets and strings only: what it accepts
// may still be invalid JSON, which the SAX parser that reads the copy then finds.
class Splitter {
 public:
  explicit Splitter(TraceFileBuf& buf) : buf_(buf), block_(size_t{1} << 20) {}

  int Peek() {
    if (pos_ == len_ && !Fill()) return -1;
    return static_cast<unsigned char>(block_[pos_]);
  }
  int Next() {
    const int c = Peek();
    if (c >= 0) ++pos_;
    return c;
  }
  void SkipSpace() {
    for (int c = Peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = Peek()) ++pos_;
  }
  bool SkipByteOrderMark() {
    if (Peek() != 0xEF) return true;
    return Next() == 0xEF && Next() == 0xBB && Next() == 0xBF;
  }
  // One value (object, array, string or scalar) appended to `out`; false at the end of the text.
  bool CopyValue(std::string& out) {
    const int c = Peek();
    if (c == '{' || c == '[' || c == '"') return CopyNested(out);
    for (int d = Peek(); d >= 0 && d != ',' && d != '}' && d != ']' && d != ' ' && d != '\n' && d != '\r' && d != '\t';
         d = Peek()) {
      out.push_back(static_cast<char>(Next()));
    }
    return true;
  }

 private:
  bool Fill() {
    pos_ = 0;
    len_ = static_cast<size_t>(buf_.sgetn(block_.data(), static_cast<std::streamsize>(block_.size())));
    return len_ > 0;
  }
  // From an opening bracket or quote to its match.
  bool CopyNested(std::string& out) {
    int depth = 0;
    bool in_string = false, escaped = false;
    while (pos_ < len_ || Fill()) {
      const char* begin = block_.data() + pos_;
      const char* end = block_.data() + len_;
      for (const char* p = begin; p < end; ++p) {
        const char ch = *p;
        bool closed = false;
        if (in_string) {
          if (escaped) {
            escaped = false;
          } else if (ch == '\\') {
            escaped = true;
          } else if (ch == '"') {
            in_string = false;
            closed = depth == 0;
          }
        } else if (ch == '"') {
          in_string = true;
        } else if (ch == '{' || ch == '[') {
          ++depth;
        } else if (ch == '}' || ch == ']') {
          closed = --depth == 0;
        }
        if (closed) {
          out.append(begin, p + 1);
          pos_ = static_cast<size_t>(p + 1 - block_.data());
          return true;
        }
      }
      out.append(begin, end);
      pos_ = len_;
    }
    return false;
  }

  TraceFileBuf& buf_;
  std::vector<char> block_;
  size_t pos_ = 0, len_ = 0;
};

struct Part {
  Status status;
  std::unique_ptr<KinetoConverter> converter;
  int64_t events = 0;
};

Part ReadPart(std::string text, const std::string& path, int64_t first_index) {
  Part part;
  part.converter = std::make_unique<KinetoConverter>(path);
  auto events = ReadKinetoEventChunk(text, path, first_index, *part.converter);
  if (events.ok()) {
    part.events = *events;
  } else {
    part.status = events.status();
  }
  return part;
}

// Starts chunks on workers and merges finished ones, in order, into `into`.
class PartPipeline {
 public:
  PartPipeline(const std::string& path, int threads, KinetoConverter& into)
      : path_(path), threads_(threads), into_(into) {}
  ~PartPipeline() {
    for (auto& f : running_) f.wait();  // a failed read still joins its workers
  }

  bool Submit(std::string chunk, int64_t first_index) {
    if (static_cast<int>(running_.size()) >= threads_ && !MergeOldest()) return false;
    try {
      running_.push_back(std::async(std::launch::async, ReadPart, std::move(chunk), std::cref(path_), first_index));
    } catch (const std::system_error&) {
      return false;  // no thread to be had: the sequential path will do
    }
    return true;
  }
  bool Drain() {
    while (!running_.empty()) {
      if (!MergeOldest()) return false;
    }
    return true;
  }
  int64_t events() const { return events_; }

 private:
  bool MergeOldest() {
    Part part = running_.front().get();
    running_.pop_front();
    if (!part.status.ok()) return false;
    into_.Absorb(std::move(*part.converter));
    events_ += part.events;
    return true;
  }

  const std::string& path_;
  const int threads_;
  KinetoConverter& into_;
  std::deque<std::future<Part>> running_;
  int64_t events_ = 0;
};

// The events of traceEvents, from after its '[' to after its ']', cut into chunks for the pipeline.
bool SplitEvents(Splitter& text, PartPipeline& pipeline, int64_t& submitted) {
  std::string chunk = "[";
  int64_t in_chunk = 0;
  text.SkipSpace();
  if (text.Peek() == ']') {
    text.Next();
    return true;
  }
  while (true) {
    text.SkipSpace();
    if (text.Peek() != '{') return false;
    if (in_chunk > 0) chunk.push_back(',');
    if (!text.CopyValue(chunk)) return false;
    ++in_chunk;
    text.SkipSpace();
    const int c = text.Next();
    if (c != ',' && c != ']') return false;
    if (c == ']' || chunk.size() >= kChunkBytes) {
      chunk.push_back(']');
      if (!pipeline.Submit(std::move(chunk), submitted)) return false;
      submitted += in_chunk;
      chunk = "[";
      in_chunk = 0;
    }
    if (c == ']') return true;
  }
}

}  // namespace

bool ReadKinetoInParallel(const std::string& path, int threads, KinetoConverter& into, int64_t& events) {
  auto opened = TraceFileBuf::Open(path);
  if (!opened.ok()) return false;
  Splitter text(**opened);
  PartPipeline pipeline(path, threads, into);
  int64_t submitted = 0;
  // Everything at the top level but traceEvents (deviceProperties, baseTimeNanoseconds...), read where
  // it stands relative to traceEvents, so that strings are numbered as the sequential read numbers them.
  std::string members;
  auto read_members = [&] {
    const std::string doc = "{" + members + (members.empty() ? "" : ",") + "\"traceEvents\": []}";
    members.clear();
    return ReadKinetoEventChunk(doc, path, 0, into).ok();
  };
  if (!text.SkipByteOrderMark()) return false;
  text.SkipSpace();
  const int first = text.Next();
  if (first == '[') {
    if (!SplitEvents(text, pipeline, submitted)) return false;
  } else if (first == '{') {
    bool saw_events = false;
    text.SkipSpace();
    if (text.Peek() == '}') return false;  // no traceEvents: the sequential read says so
    while (true) {
      text.SkipSpace();
      std::string key;
      if (text.Peek() != '"' || !text.CopyValue(key)) return false;
      text.SkipSpace();
      if (text.Next() != ':') return false;
      text.SkipSpace();
      if (key == "\"traceEvents\"" && text.Peek() == '[' && !saw_events) {
        saw_events = true;
        text.Next();
        if (!read_members() || !SplitEvents(text, pipeline, submitted)) return false;
      } else {
        members += (members.empty() ? "" : ",") + key + ":";
        if (!text.CopyValue(members)) return false;
      }
      text.SkipSpace();
      const int c = text.Next();
      if (c == '}') break;
      if (c != ',') return false;
    }
    if (!saw_events) return false;
  } else {
    return false;
  }
  text.SkipSpace();
  if (text.Peek() != -1 || !(*opened)->error().ok()) return false;
  if (!pipeline.Drain() || !read_members()) return false;
  events = pipeline.events();
  return events == submitted;
}

}  // namespace nimble::workflow
