"""A binary under a name of its own, built in another configuration: the
certifications' ThreadSanitizer and optimized builds inside a plain build."""

# The own view's message-passing test under ThreadSanitizer in any build: the
# binary and everything it links (the endpoint, gtest) compiled and linked
# with -fsanitize=thread, so a relaxed counter store or load of the endpoint's
# view is a reported race in a plain `bazel test` (g++ links its libtsan, a
# part of libgcc-12-dev; clang its own). A build that already has it
# (--config=tsan) is left as it is, and so is one with AddressSanitizer, which
# cannot be combined with it (the test then skips: built without TSan).
def _tsan_transition_impl(settings, attr):
    copts = settings["//command_line_option:copt"]
    linkopts = settings["//command_line_option:linkopt"]
    sanitizers = ",".join([o for o in copts if o.startswith("-fsanitize=")])
    if "thread" in sanitizers or "address" in sanitizers:
        return {"//command_line_option:copt": copts, "//command_line_option:linkopt": linkopts}
    return {
        "//command_line_option:copt": copts + ["-fsanitize=thread"],
        "//command_line_option:linkopt": linkopts + ["-fsanitize=thread"],
    }

_tsan_transition = transition(
    implementation = _tsan_transition_impl,
    inputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
    outputs = ["//command_line_option:copt", "//command_line_option:linkopt"],
)

# The counter-wrap binaries' extra compiler options: -O2; the frame
# pointer's register for their loops (the toolchain keeps it by default),
# which they would otherwise spill to the stack for; and no auto-vectorized
# moves. GCC copies pairs of 8-byte fields (an endpoint's bookkeeping, a
# zeroed struct) with 16-byte vector moves that scalar loads then read back.
# On this machine kind that costs little on a quiet CPU, but much when the
# host's other tenants share it: in such windows the L2 input ring read
# 1.91x the floor sampled beside it with these moves, 1.57x without (1.62x
# and 1.51x on a quiet CPU).
WRAP_COPTS = ["-O2", "-fomit-frame-pointer", "-fno-tree-vectorize", "-fno-tree-slp-vectorize"]

# For spsq_l3_certification's once-built binaries (the L3 counter wrap): the
# wrap's speed is the L3 queue's own, and the adapter library (with the queue
# behind it) is compiled by its own cc_library, which copts on the test
# source alone do not reach. So they are built, with all their dependencies,
# in compilation mode opt (-O2) with WRAP_COPTS through this transition.
def _l3_opt_transition_impl(settings, attr):
    return {
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:copt": settings["//command_line_option:copt"] + WRAP_COPTS,
    }

_l3_opt_transition = transition(
    implementation = _l3_opt_transition_impl,
    inputs = ["//command_line_option:copt"],
    outputs = ["//command_line_option:compilation_mode", "//command_line_option:copt"],
)

def _transitioned_binary_impl(ctx):
    dep = ctx.attr.binary
    if type(dep) == "list":
        dep = dep[0]
    info = dep[DefaultInfo]
    exe = info.files_to_run.executable
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = exe, is_executable = True)
    runfiles = ctx.runfiles(files = [exe]).merge(info.default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

def _transitioned_binary(transition, doc):
    return rule(
        implementation = _transitioned_binary_impl,
        doc = doc,
        attrs = {
            "binary": attr.label(cfg = transition, executable = True, mandatory = True),
            "_allowlist_function_transition": attr.label(
                default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
            ),
        },
        executable = True,
    )

tsan_binary = _transitioned_binary(
    _tsan_transition,
    "`binary`, built with ThreadSanitizer, under a name of its own.",
)

l3_opt_binary = _transitioned_binary(
    _l3_opt_transition,
    "`binary`, built in compilation mode opt, under a name of its own.",
)
