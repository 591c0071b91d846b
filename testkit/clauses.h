// How a test says which catalogue clauses (conformance/clauses.json) it
// covers. The IDs become the GoogleTest property "clauses" in the test's XML
// (Bazel's test.xml), which the report tool joins with the catalogue; the
// traceability gate reads the same SPSQ_CLAUSES(...) calls from the source.
//
//   TEST_F(Publication, PayloadBeforeSeq) {
//     SPSQ_CLAUSES("S3.PUB.1", "S3.PUB.2");
//     ...
//   }
//
// A test that walks through behaviour another clause governs, without
// judging it, names that clause apart: its failure never FAILs those.
//   SPSQ_EXERCISES("S2.FIT.1", "W.ARENA.1");
//
// A block that judges clauses of its own (a shared check, or one case of a
// many-case test) says so; its failures FAIL those clauses alone, while a
// failure outside any such block FAILs what SPSQ_CLAUSES named:
//   { SPSQ_JUDGING("W.FLAG.1"); EXPECT_EQ(flag, 1); }
//
// An open point or ambiguity records which reading the implementation showed:
//   SPSQ_READING("OPEN.ERRIN", "B", "input ERROR poisoned with INVALID_DESCRIPTOR");
#ifndef SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_
#define SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_

#include <initializer_list>
#include <string>

#include "gtest/gtest.h"

namespace spsq_conf {

// Adds the IDs to the running test's "clauses" property.
void record_clauses(std::initializer_list<const char*> ids);

// Records property "reading.<clause>" = "<reading>: <detail>" and adds the
// clause to "clauses".
void record_reading(const char* clause, const char* reading, const std::string& detail);

// Records the clauses a fixture checks after every test ("invariants"); the
// ones broken go to "invariant_violations" (recorded by the fixture).
void record_invariants(std::initializer_list<const char*> ids);

// Adds the IDs to the running test's "exercises" property: clauses the test
// goes through but does not judge.
void record_exercised(std::initializer_list<const char*> ids);

// Records a free-form property (e.g. "observed.kind").
void record_observation(const std::string& key, const std::string& value);

// The marker a failure's GoogleTest trace carries inside an SPSQ_JUDGING block
// (certify/runner/verdicts.py reads it back).
inline constexpr char kJudgingTrace[] = "spsq-judging:";

// Adds the IDs to the running test's "scoped_clauses" property (judged, but
// only by the failures traced to them) and, while alive, traces every failure
// with them. Not copyable: it lives in one block.
class JudgingScope {
 public:
  JudgingScope(const char* file, int line, std::initializer_list<const char*> ids);
  JudgingScope(const JudgingScope&) = delete;
  JudgingScope& operator=(const JudgingScope&) = delete;

 private:
  static std::string trace_text(std::initializer_list<const char*> ids);
  ::testing::ScopedTrace trace_;
};

}  // namespace spsq_conf

#define SPSQ_CLAUSES(...) ::spsq_conf::record_clauses({__VA_ARGS__})
#define SPSQ_EXERCISES(...) ::spsq_conf::record_exercised({__VA_ARGS__})
#define SPSQ_JUDGING(...) SPSQ_JUDGING_AT_(__LINE__, __VA_ARGS__)
#define SPSQ_JUDGING_AT_(line, ...) SPSQ_JUDGING_NAMED_(line, __VA_ARGS__)
#define SPSQ_JUDGING_NAMED_(line, ...) \
  ::spsq_conf::JudgingScope spsq_judging_##line(__FILE__, line, {__VA_ARGS__})
#define SPSQ_INVARIANTS(...) ::spsq_conf::record_invariants({__VA_ARGS__})
#define SPSQ_READING(clause, reading, detail) \
  ::spsq_conf::record_reading(clause, reading, detail)

#endif  // SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_
