#include "testkit/clauses.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// Per-test accumulation of one property: RecordProperty overwrites a key, so
// the whole list is recorded again each time it grows.
class Accumulated {
 public:
  explicit Accumulated(const char* key) : key_(key) {}

  void add(const char* id) {
    const ::testing::TestInfo* current =
        ::testing::UnitTest::GetInstance()->current_test_info();
    if (test_ != current) {
      test_ = current;
      ids_.clear();
    }
    const std::string padded = "," + ids_ + ",";
    if (padded.find("," + std::string(id) + ",") != std::string::npos) return;
    if (!ids_.empty()) ids_ += ",";
    ids_ += id;
  }
  void flush() const { ::testing::Test::RecordProperty(key_, ids_); }

 private:
  const char* key_;
  const ::testing::TestInfo* test_ = nullptr;
  std::string ids_;
};

Accumulated& judged() {
  static Accumulated a("clauses");
  return a;
}

Accumulated& scoped() {
  static Accumulated a("scoped_clauses");
  return a;
}

void add_id(const char* id) { judged().add(id); }
void flush() { judged().flush(); }

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

std::string JudgingScope::trace_text(std::initializer_list<const char*> ids) {
  std::string text = kJudgingTrace;
  for (const char* id : ids) {
    scoped().add(id);
    text += " ";
    text += id;
  }
  scoped().flush();
  return text;
}

JudgingScope::JudgingScope(const char* file, int line, std::initializer_list<const char*> ids)
    : trace_(file, line, trace_text(ids)) {}

}  // namespace spsq_conf
