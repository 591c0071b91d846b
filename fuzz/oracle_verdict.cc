#include "fuzz/oracle_verdict.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace spsq_fuzz {
namespace {

OracleNote finding_note, reading_note;

// The readings printed so far: a process states each clause and letter once,
// as SPSQ_FUZZ_READING states one per site, and a run takes few of them.
const char* said[32][2];
int nsaid = 0;

bool said_before(const char* clause, const char* letter) {
  for (int i = 0; i < nsaid; ++i) {
    if (std::strcmp(said[i][0], clause) == 0 && std::strcmp(said[i][1], letter) == 0) return true;
  }
  return false;
}

}  // namespace

const OracleNote& Verdict::finding() { return finding_note; }
const OracleNote& Verdict::stated() { return reading_note; }

void Verdict::fail(const char* ids, const char* file, int line, const char* cond, const char* fmt,
                   ...) {
  clauses = ids;
  finding_note.file = file;
  finding_note.line = line;
  finding_note.what = cond;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(finding_note.text, sizeof(finding_note.text), fmt, ap);
  va_end(ap);
}

void Verdict::read(const char* clause, const char* letter, const char* file, int line,
                   const char* fmt, ...) {
  reading = clause;
  reading_note.file = file;
  reading_note.line = line;
  reading_note.what = letter;
  // A reading already printed is not printed again: no text to format (a
  // blocking call's expiry states one on many steps).
  if (said_before(clause, letter)) return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(reading_note.text, sizeof(reading_note.text), fmt, ap);
  va_end(ap);
}

void report_verdict(const Verdict& v) {
  if (v.reading != nullptr && !said_before(v.reading, reading_note.what)) {
    if (nsaid < 32) {
      said[nsaid][0] = v.reading;
      said[nsaid][1] = reading_note.what;
      ++nsaid;
    }
    std::fprintf(stderr, "spsq-reading: %s=%s at %s:%d: %s\n", v.reading, reading_note.what,
                 reading_note.file, reading_note.line, reading_note.text);
  }
  if (v.clauses != nullptr) {
    std::fprintf(stderr, "spsq-finding: clauses=%s at %s:%d: %s\n  %s\n", v.clauses,
                 finding_note.file, finding_note.line, finding_note.what, finding_note.text);
    std::abort();
  }
}

}  // namespace spsq_fuzz
