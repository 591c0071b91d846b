// TaskArgs: the scalar arguments an L3 orchestrator hands to a next-level (L2)
// task. Scalars are the only thing a submitted task receives from L3; a queue
// travels as its ten binding scalars at offset 0.
#ifndef SPSQ_RUNTIME_TASK_ARGS_H_
#define SPSQ_RUNTIME_TASK_ARGS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spsq_runtime {

class TaskArgs {
 public:
  void add_scalar(uint64_t value) { scalars_.push_back(value); }

  // Scalar i. An index outside [0, scalar_count()) reads as 0, which is never
  // a valid magic_version or transaction id, so a binding decoder handed too
  // few scalars fails closed instead of reading garbage.
  uint64_t scalar(int32_t i) const {
    if (i < 0 || static_cast<size_t>(i) >= scalars_.size()) return 0;
    return scalars_[static_cast<size_t>(i)];
  }

  size_t scalar_count() const { return scalars_.size(); }

 private:
  std::vector<uint64_t> scalars_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_TASK_ARGS_H_
