#include "conformance/harness/clauses.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// Per-test accumulation: RecordProperty overwrites a key, so the whole list
// is recorded again each time it grows.
struct Accumulated {
  const ::testing::TestInfo* test = nullptr;
  std::string ids;
};

Accumulated& accumulated() {
  static Accumulated a;
  return a;
}

void add_id(const char* id) {
  Accumulated& a = accumulated();
  const ::testing::TestInfo* current = ::testing::UnitTest::GetInstance()->current_test_info();
  if (a.test != current) {
    a.test = current;
    a.ids.clear();
  }
  const std::string padded = "," + a.ids + ",";
  if (padded.find("," + std::string(id) + ",") != std::string::npos) return;
  if (!a.ids.empty()) a.ids += ",";
  a.ids += id;
}

void flush() { ::testing::Test::RecordProperty("clauses", accumulated().ids); }

}  // namespace

void record_clauses(std::initializer_list<const char*> ids) {
  for (const char* id : ids) add_id(id);
  flush();
}

void record_reading(const char* clause, const char* reading, const std::string& detail) {
  add_id(clause);
  flush();
  ::testing::Test::RecordProperty(std::string("reading.") + clause,
                                  std::string(reading) + ": " + detail);
}

void record_invariants(std::initializer_list<const char*> ids) {
  std::string joined;
  for (const char* id : ids) joined += (joined.empty() ? "" : ",") + std::string(id);
  ::testing::Test::RecordProperty("invariants", joined);
}

void record_exercised(std::initializer_list<const char*> ids) {
  std::string joined;
  for (const char* id : ids) joined += (joined.empty() ? "" : ",") + std::string(id);
  ::testing::Test::RecordProperty("exercises", joined);
}

void record_observation(const std::string& key, const std::string& value) {
  ::testing::Test::RecordProperty(key, value);
}

}  // namespace spsq_conf
