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
// An open point or ambiguity records which reading the implementation showed:
//   SPSQ_READING("OPEN.ERRIN", "B", "input ERROR poisoned with INVALID_DESCRIPTOR");
#ifndef SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_
#define SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_

#include <initializer_list>
#include <string>

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

}  // namespace spsq_conf

#define SPSQ_CLAUSES(...) ::spsq_conf::record_clauses({__VA_ARGS__})
#define SPSQ_EXERCISES(...) ::spsq_conf::record_exercised({__VA_ARGS__})
#define SPSQ_INVARIANTS(...) ::spsq_conf::record_invariants({__VA_ARGS__})
#define SPSQ_READING(clause, reading, detail) \
  ::spsq_conf::record_reading(clause, reading, detail)

#endif  // SPSQ_CONFORMANCE_HARNESS_CLAUSES_H_
