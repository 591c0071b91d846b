"""edited_reference: the reference L2 endpoint with a diff applied, as a library.

Copies every file of the reference endpoint into the package's own include
tree at build time and applies a unified diff to the copies (`patch --fuzz=0`,
never an #ifdef in the reference). The genrule fails, naming the edited
endpoint and the file, if the diff no longer applies to the reference, so a
refactoring of core/ cannot silently turn an edited endpoint back into the
reference. A diff's hunks are anchored on code lines only
(selftest/tools/reference_edits.py, checked by
//selftest/tools:reference_edits_test), so rewording a comment in core/
breaks none. Used by mutants (one defect each, //selftest/mutants) and legal
variants (another allowed choice each, //selftest/variants). The files are
the one list of core/reference_files.bzl; runtime mutants edit the
Orchestrator's (core/runtime/orchestrator_files.bzl), L3 mutants the L3
queue's (core/l3/worker_chip_queue_files.bzl).
"""

load("//core:reference_files.bzl", "REFERENCE_FILES")
load("//core/l3:worker_chip_queue_files.bzl", "WORKER_CHIP_QUEUE_DEPS", "WORKER_CHIP_QUEUE_HDRS")

def edited_reference(
        name,
        diff,
        visibility = None,
        kind = "edited reference",
        files = REFERENCE_FILES,
        subpackage = "",
        deps = []):
    """The reference endpoint with `diff` applied.

    Creates `<name>_sources` (the genrule that copies the files into
    `<name>_tree/core/` and patches them) and `<name>_impl` (the cc_library
    over the copies, included as "common/..." and "aicpu/..." like
    //core:endpoint; its sources compiled as one). Both are testonly.

    Args:
      name: prefix of the generated targets.
      diff: label of a unified diff whose paths are `a/core/...` and
        `b/core/...` (from the repository root), over files of `files` only;
        None copies the files as they are (an L3 queue on an edited engine).
      visibility: visibility of `<name>_impl`.
      kind: what the edited endpoint is ("mutant", "variant"), for messages.
      files: the files copied, relative to core/<subpackage>/ (default: the
        reference endpoint's).
      subpackage: the core package the files belong to ("runtime" for the
        Orchestrator's files, "l3" for the L3 queue's); the copies keep their
        include paths ("runtime/...").
      deps: of `<name>_impl`, for files that need more than the reference
        endpoint's own (the Orchestrator's ORCHESTRATOR_DEPS).
    """
    package = "//core" + ("/" + subpackage if subpackage else "")
    tree = name + "_tree/core/" + (subpackage + "/" if subpackage else "")
    outs = [tree + f for f in files]
    cmds = ["set -e"]

    # One mkdir, and one cp per directory: a process per file made the copy
    # cost more than the compiles of some edited endpoints.
    by_dir = {}
    for f in files:
        by_dir.setdefault(f.rpartition("/")[0], []).append(f)
    cmds.append("mkdir -p " + " ".join(["$(@D)/%s%s" % (tree, d) for d in by_dir]))
    for d, fs in by_dir.items():
        cmds.append("cp %s $(@D)/%s%s" % (" ".join(["$(location %s:%s)" % (package, f) for f in fs]),
                                         tree, d))
    if diff:
        _patch(cmds, name, diff, kind)

    # The edited sources compile as one translation unit, their texts one
    # after the other, each after a #line naming its copy (so a diagnostic
    # names the file and line it comes from): the reference endpoint's
    # sources are small, and each compile of its own cost more in starting
    # the compiler and reading the standard headers than in its code, for
    # every edited endpoint in every build that links it.
    sources = [tree + f for f in files if f.endswith(".cc")]
    if len(sources) > 1:
        unity = name + "_tree/" + name + "_sources.cc"
        cmds.append("(" + "; ".join([
            "echo '#line 1 \"$(@D)/%s\"'; cat $(@D)/%s" % (f, f)
            for f in sources
        ]) + ") > $(@D)/" + unity)
        outs = outs + [unity]
        sources = [unity]
    native.genrule(
        name = name + "_sources",
        srcs = ["%s:%s" % (package, f) for f in files] + ([diff] if diff else []),
        outs = outs,
        cmd = "\n".join(cmds),
        testonly = True,
    )
    native.cc_library(
        name = name + "_impl",
        # An archive only: what uses it links it statically, and `bazel test
        # //...` would otherwise link a shared copy of it too, for nothing.
        linkstatic = True,
        srcs = sources,
        hdrs = [tree + f for f in files if f.endswith(".h")],
        strip_include_prefix = name + "_tree/core",
        deps = deps,
        testonly = True,
        visibility = visibility,
    )

def _patch(cmds, name, diff, kind):
    """Appends the commands that patch the copies under `<name>_tree`."""
    cmds.append("chmod -R u+w $(@D)/%s_tree" % name)

    # -p1 strips a/ and b/: the paths are core/... under <name>_tree.
    patch_commands(cmds, name, diff, kind, "-p1 -d $(@D)/%s_tree" % name)

def patch_commands(cmds, name, diff, kind, where):
    """Appends the command that applies `diff` with GNU patch at `where` (its
    -p/-d options, or the one file to patch), failing with the edit's name
    when a hunk does not apply."""

    # Rejected hunks are dropped (-r -), never left beside the copies;
    # patch's own output names the file and the hunk.
    cmds.append(
        "if ! out=$$(patch --batch --forward --fuzz=0 --no-backup-if-mismatch -r - " +
        "%s < $(location %s) 2>&1); then " % (where, diff) +
        "echo \"%s %s: $(location %s) does not apply to the reference (core/ changed?):\" >&2; " %
        (kind, name, diff) +
        "echo \"$$out\" >&2; exit 1; fi",
    )

def edited_l3_queue(name, diff, kind, engine = None, adapter = None):
    """The reference L3 queue with `diff` applied, behind the reference's adapter.

    Creates `<name>_impl` (edited_reference over the queue's files) and the
    adapter library (`adapter`, default `<name>_adapter`: the reference's
    //conformance/l3:reference_l3_adapter.cc over the edited queue), which an
    spsq_l3_certification takes as its adapter_deps. The one place mutants,
    variants and the defects of //selftest/unseen build an edited queue.

    Args:
      name: prefix of the generated targets.
      diff: label of a unified diff over the queue's files
        (core/l3/worker_chip_queue_files.bzl), or None (the queue as it is).
      kind: what the edited queue is, for messages.
      engine: an edited wire engine (an edited_reference's `_impl`) the queue
        is built on instead of //core:wire, or None.
      adapter: the adapter library's name.
    """
    wire = engine if engine else "//core:wire"
    edited_reference(
        name = name,
        diff = diff,
        kind = kind,
        files = WORKER_CHIP_QUEUE_HDRS,
        subpackage = "l3",
        deps = [engine, "//core/region"] if engine else WORKER_CHIP_QUEUE_DEPS,
    )
    native.cc_library(
        name = adapter if adapter else name + "_adapter",
        linkstatic = True,
        srcs = ["//conformance/l3:reference_l3_adapter.cc"],
        deps = [":%s_impl" % name, "//conformance/l3:l3_headers", "//core/l3:unsigned_timeout", wire],
        testonly = True,
    )
