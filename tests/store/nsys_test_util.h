// Helpers shared by the tests of the Nsight Systems export reader: a scratch directory that writes
// fixtures, changing a test's own copy of an export with SQL, finding a stat, and checking a trace that was read from a damaged export for what
// must hold of every trace. Single-threaded test code.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "make_nsys_fixture.h"
#include "nimble/core/imported_trace.h"
#include "store_test_util.h"

namespace nimble::store::testing {

// A scratch directory for each test, where Write puts a schema-synthetic export of a fixture.
class NsysFixtureTest : public TempDirTest {
 protected:
  std::string Write(const NsysFixture& f, const std::string& name = "report_schema_synthetic.sqlite") {
    const std::string path = PathOf(name);
    const Status s = WriteNsysFixture(path, f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }
};

// Runs `sql` on the file at `path` (a test's scratch copy, created if missing) and fails the test if
// SQLite refuses it.
void ExecSql(const std::string& path, const std::string& sql);

// The first stat called `name`, or nullptr.
const StatEntry* FindStat(const ImportedTrace& trace, const std::string& name);

// "" when every record ends at or after its start, every valid id is non-negative and every string id
// is in the trace's table; else the first violation.
std::string CheckTraceInvariants(const Trace& trace);

}  // namespace nimble::store::testing
