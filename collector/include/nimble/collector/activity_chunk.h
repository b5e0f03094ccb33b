// A batch of converted activity records, handed from the converter to a RecordSink.
// StringIds in the records refer to the converter's StringTable, passed alongside.
// A value; owned by one thread at a time (the pipeline's).
#pragma once

#include "nimble/core/activity_records.h"

namespace nimble::collector {

using ActivityChunk = ActivityRecords;

}  // namespace nimble::collector
