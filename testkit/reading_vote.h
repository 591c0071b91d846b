// Which reading of an open point or ambiguity an endpoint shows, decided over
// several cases. A reading describes the endpoint, not one call, so each case
// states the readings its behaviour is consistent with, and the clause's
// reading is the first listed one every case agrees with. Behaviour that
// fits no listed reading, or cases that agree on none, fail the test and
// leave nothing to record: an unlisted reading is never recorded silently.
//
//   ReadingVote v("OPEN.ERRIN", {"A", "B"});
//   v.Case("payload", {"B"}, "poisoned INVALID_DESCRIPTOR");
//   v.Case("zero-byte", {}, "live, but the handle has opcode DATA");  // fits none
//   const std::string r = v.Decide();
//   if (r == "A") SPSQ_READING("OPEN.ERRIN", "A", v.detail());
//   if (r == "B") SPSQ_READING("OPEN.ERRIN", "B", v.detail());
//
// The SPSQ_READING calls stay literal so the catalogue's readings can be read
// off the source.
#ifndef SPSQ_CONFORMANCE_HARNESS_READING_VOTE_H_
#define SPSQ_CONFORMANCE_HARNESS_READING_VOTE_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace spsq_conf {

class ReadingVote {
 public:
  // `listed`: the clause's readings, in the order ties are broken.
  ReadingVote(const char* clause, std::initializer_list<const char*> listed)
      : clause_(clause), listed_(listed.begin(), listed.end()), agree_(listed_) {}

  // One case's behaviour: the listed readings it is consistent with (none:
  // it matches no reading) and what it showed.
  void Case(const std::string& key, std::initializer_list<const char*> consistent,
            const std::string& shown) {
    std::vector<std::string> keep;
    for (const char* r : consistent) {
      bool listed = false;
      for (const std::string& l : listed_) listed = listed || l == r;
      if (!listed) {
        ADD_FAILURE() << clause_ << "/" << key << ": reading " << r << " is not one of "
                      << clause_ << "'s";
        continue;
      }
      for (const std::string& a : agree_) {
        if (a == r) keep.push_back(a);
      }
    }
    if (consistent.size() == 0) {
      ADD_FAILURE() << clause_ << "/" << key << " matches none of " << clause_
                    << "'s readings: " << shown;
    }
    agree_ = keep;
    detail_ += (detail_.empty() ? "" : "; ") + key + ": " + shown;
  }

  // The reading to record, or "" (the test has failed) when none fits.
  std::string Decide() const {
    if (agree_.empty()) {
      ADD_FAILURE() << clause_ << ": the cases agree on no listed reading (" << detail_ << ")";
      return "";
    }
    return agree_.front();
  }

  const std::string& detail() const { return detail_; }

 private:
  std::string clause_;
  std::vector<std::string> listed_;
  std::vector<std::string> agree_;  // in listed order
  std::string detail_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_READING_VOTE_H_
