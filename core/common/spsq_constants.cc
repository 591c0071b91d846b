#include "common/spsq_constants.h"

namespace spsc_queue {

const char* opcode_name(uint64_t opcode) {
  switch (opcode) {
    case 0: return "INVALID";
    case 1: return "DATA";
    case 2: return "STOP";
    case 3: return "ERROR";
    default: return "UNKNOWN";
  }
}

const char* error_kind_name(SpscQueueErrorKind kind) {
  switch (kind) {
    case SpscQueueErrorKind::NONE: return "NONE";
    case SpscQueueErrorKind::BAD_ARGUMENT: return "BAD_ARGUMENT";
    case SpscQueueErrorKind::BAD_BINDING: return "BAD_BINDING";
    case SpscQueueErrorKind::INVALID_DESCRIPTOR: return "INVALID_DESCRIPTOR";
    case SpscQueueErrorKind::OWNERSHIP: return "OWNERSHIP";
    case SpscQueueErrorKind::REMOTE_ABORTED: return "REMOTE_ABORTED";
    case SpscQueueErrorKind::ENDPOINT_ERROR: return "ENDPOINT_ERROR";
  }
  return "UNKNOWN_KIND";
}

const char* operation_name(SpscQueueOp op) {
  switch (op) {
    case SpscQueueOp::NONE: return "NONE";
    case SpscQueueOp::INIT: return "INIT";
    case SpscQueueOp::TIMEOUT: return "TIMEOUT";
    case SpscQueueOp::INPUT_TRY_PEEK: return "INPUT_TRY_PEEK";
    case SpscQueueOp::INPUT_RELEASE: return "INPUT_RELEASE";
    case SpscQueueOp::OUTPUT_TRY_RESERVE: return "OUTPUT_TRY_RESERVE";
    case SpscQueueOp::OUTPUT_PUBLISH: return "OUTPUT_PUBLISH";
    case SpscQueueOp::L3_ENQUEUE: return "L3_ENQUEUE";
    case SpscQueueOp::L3_REQUEST_STOP: return "L3_REQUEST_STOP";
    case SpscQueueOp::L3_OUTPUT_PEEK: return "L3_OUTPUT_PEEK";
    case SpscQueueOp::L3_OUTPUT_READ: return "L3_OUTPUT_READ";
    case SpscQueueOp::L3_OUTPUT_RELEASE: return "L3_OUTPUT_RELEASE";
  }
  return "UNKNOWN_OP";
}

}  // namespace spsc_queue
