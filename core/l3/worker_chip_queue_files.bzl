"""The reference L3 queue's files, relative to core/l3/: the one list.

core/l3/BUILD compiles //core/l3:worker_chip_queue from it; L3 mutants copy and
edit these files (//selftest/mutants:mutants.bzl, through
//selftest:edited_reference.bzl) and build them with the same deps.
"""

WORKER_CHIP_QUEUE_HDRS = [
    "worker_chip_queue.h",
    "worker_chip_queue_core.h",
    "worker_chip_queue_input.h",
    "worker_chip_queue_output.h",
    "worker_chip_queue_status.h",
]

WORKER_CHIP_QUEUE_DEPS = [
    "//core:endpoint",
    "//core:wire",
    "//core/region",
]
