// One golden case: an input database, the commands run on a copy of it, and the file that holds
// their expected output. Cases are listed in tests/golden/cases.txt, one a line (format there);
// parsing is pure, so the parser is tested on its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::golden {

// What of a command's run the expected file holds.
enum class Capture {
  kStdout,      // stdout only; any step exiting non-zero fails the case
  kAll,         // stdout, then stderr and the exit code (error cases)
  kMaskedJson,  // stdout as JSON with timings and recording details masked (see report_mask.h)
};

// One command of a case. `program` is "nimble-prof" (the binary under test) or one of the test's own
// steps on the stored results: "clear-results <db>", "stored-results <db>" (see stored_results.h).
struct GoldenStep {
  std::string program;
  std::vector<std::string> args;
  std::string Line() const;  // as written in the cases file, single-spaced
};

struct GoldenCase {
  std::string expected;  // file name under tests/golden/expected/
  std::string input;     // database under samples/recorded/ copied in first; empty for none ("-")
  Capture capture = Capture::kStdout;
  std::vector<GoldenStep> steps;
  int line = 0;  // in the cases file, for messages

  // A GoogleTest-safe name derived from `expected` ("report_inception_v3.txt" -> "report_inception_v3_txt").
  std::string TestName() const;
};

// Parses the cases file's text. Blank lines and lines starting with '#' are skipped; every other
// line must be a valid case, and expected file names must be unique.
StatusOr<std::vector<GoldenCase>> ParseGoldenCases(std::string_view text);

}  // namespace nimble::golden
