#include "import_fuzzer.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>

#include "fuzz_child.h"
#include "nimble/workflow/import.h"

namespace nimble::fuzz {
namespace {

namespace fs = std::filesystem;

enum class Outcome { kImported, kError, kCrash, kHang };

bool IsGzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Damages `bytes` in one of five ways; returns what it did.
std::string Mutate(std::string& bytes, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  const int kinds = IsGzip(bytes) ? 4 : 5;  // numbers inside compressed data are not text
  switch (rng() % kinds) {
    case 0: {
      const size_t size = pick(bytes.size());
      bytes.resize(size);
      return "truncated to " + std::to_string(size) + " bytes";
    }
    case 1: {
      const size_t count = 1 + pick(8);
      for (size_t i = 0; i < count && !bytes.empty(); ++i) bytes[pick(bytes.size())] = static_cast<char>(rng());
      return std::to_string(count) + " random bytes";
    }
    case 2: {
      const size_t at = pick(bytes.size()), n = 1 + pick(200);
      bytes.erase(at, n);
      return "deleted " + std::to_string(n) + " bytes at " + std::to_string(at);
    }
    case 3: {
      const size_t from = pick(bytes.size()), n = 1 + pick(300), to = pick(bytes.size());
      const std::string span = bytes.substr(from, n);
      bytes.insert(to, span);
      return "copied " + std::to_string(span.size()) + " bytes from " + std::to_string(from) + " to " + std::to_string(to);
    }
    default: {
      // A number (a run of digits, with its sign, point and exponent) turned into a string.
      for (int attempt = 0; attempt < 64; ++attempt) {
        size_t at = pick(bytes.size());
        if (!std::isdigit(static_cast<unsigned char>(bytes[at]))) continue;
        while (at > 0 && (std::isdigit(static_cast<unsigned char>(bytes[at - 1])) || bytes[at - 1] == '.' || bytes[at - 1] == '-')) --at;
        size_t end = at;
        while (end < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[end])) || bytes[end] == '.' ||
                                      bytes[end] == 'e' || bytes[end] == '-')) {
          ++end;
        }
        bytes.insert(end, "\"");
        bytes.insert(at, "\"");
        return "the number at " + std::to_string(at) + " made a string";
      }
      return "no number found";
    }
  }
}

// Imports `input` into `output` in a child; its error message goes to `message`.
Outcome ImportInChild(const std::string& input, const std::string& output, const std::string& message,
                      int64_t timeout_ms) {
  fs::remove(message);
  const pid_t pid = ::fork();
  if (pid == 0) {
    workflow::ImportOptions options;
    options.input = input;
    options.output = output;
    auto result = workflow::Import(options);
    if (result.ok()) ::_exit(0);
    WriteAll(message, result.status().message());
    ::_exit(1);
  }
  switch (WaitForChild(pid, timeout_ms)) {
    case ChildEnd::kExit0: return Outcome::kImported;
    case ChildEnd::kExit1: return Outcome::kError;
    case ChildEnd::kHang: return Outcome::kHang;
    case ChildEnd::kCrash: break;
  }
  return Outcome::kCrash;
}

}  // namespace

ImportFuzzCounts FuzzImports(const ImportFuzzOptions& options) {
  ImportFuzzCounts counts;
  fs::create_directories(options.work_dir);
  std::vector<std::string> seeds;
  for (const std::string& s : options.seeds) seeds.push_back(ReadAll(s));
  if (seeds.empty()) return counts;
  std::mt19937_64 rng(options.seed);
  for (int64_t i = 0; i < options.inputs; ++i) {
    const size_t which = static_cast<size_t>(rng() % seeds.size());
    std::string bytes = seeds[which];
    const std::string what = Mutate(bytes, rng);
    // A name that differs per mutant, so that a message naming an earlier file does not pass.
    const std::string input = (fs::path(options.work_dir) / ("mutant_" + std::to_string(i) + ".json")).string();
    const std::string output = (fs::path(options.work_dir) / "out.db").string();
    const std::string message = (fs::path(options.work_dir) / "message.txt").string();
    WriteAll(input, bytes);
    fs::remove(output);
    fs::remove(output + ".partial");
    ++counts.tried;
    const Outcome outcome = ImportInChild(input, output, message, options.timeout_ms);
    std::string defect;
    const bool partial_left = fs::exists(output + ".partial");
    switch (outcome) {
      case Outcome::kImported:
        if (!fs::exists(output) || partial_left) {
          ++counts.leftovers, defect = "imported, but the output is missing or a .partial is left";
        } else {
          ++counts.imported;
        }
        break;
      case Outcome::kError:
        if (fs::exists(output) || partial_left) {
          ++counts.leftovers, defect = "an error, and files left at the output";
        } else if (ReadAll(message).find(input) == std::string::npos) {
          ++counts.unnamed, defect = "an error that does not name the file: " + ReadAll(message).substr(0, 200);
        } else {
          ++counts.errors;
        }
        break;
      case Outcome::kCrash: ++counts.crashes, defect = "crash"; break;
      case Outcome::kHang: ++counts.hangs, defect = "hang"; break;
    }
    if (!defect.empty() && counts.examples.size() < 10) {
      counts.examples.push_back("input " + std::to_string(i) + " (seed " + options.seeds[which] + ", " + what +
                                "): " + defect);
      WriteAll((fs::path(options.work_dir) / ("defect_" + std::to_string(i) + ".json")).string(), bytes);
    }
    fs::remove(input);
  }
  fs::remove((fs::path(options.work_dir) / "out.db").string());
  return counts;
}

}  // namespace nimble::fuzz
