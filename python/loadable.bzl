"""Where the spsq extension can be loaded into Debian's python3."""

def loadable_only():
    """target_compatible_with for a target that loads //python:spsq.so: not
    in builds whose extension Debian's uninstrumented python3 cannot load
    (TSan, the fuzzing engines). Such a target is skipped there, never
    silently passed."""
    return select({
        "//python:afl": ["//python:unloadable"],
        "//python:libfuzzer": ["//python:unloadable"],
        "//python:tsan": ["//python:unloadable"],
        "//conditions:default": [],
    })
