"""edited_reference: the reference L2 endpoint with perl edits or diffs, as a library.

Copies every file of the reference endpoint into the package's own include
tree at build time and applies edits to the copies (perl substitutions, never
an #ifdef in the reference). The genrule fails if an edit no longer matches the
reference, so a refactoring of core/ cannot silently turn an edited endpoint
back into the reference. Used by mutants (one defect each,
//conformance/mutants) and legal variants (another allowed choice each,
//conformance/variants). The files are the one list of core/reference_files.bzl;
runtime mutants edit the Orchestrator's (core/runtime/orchestrator_files.bzl).
"""

load("//core:reference_files.bzl", "REFERENCE_FILES")

def edited_reference(
        name,
        edits = [],
        visibility = None,
        kind = "edited reference",
        files = REFERENCE_FILES,
        subpackage = "",
        deps = [],
        diffs = []):
    """The reference endpoint with `edits` applied.

    Creates `<name>_sources` (the genrule that copies and edits the files into
    `<name>_tree/core/`) and `<name>_impl` (the cc_library over the copies,
    included as "common/..." and "aicpu/..." like //core:endpoint). Both are
    testonly.

    Args:
      name: prefix of the generated targets.
      edits: list of (file relative to core/, perl substitution) pairs,
        applied in order with `perl -0pi -e` (so a pattern may span lines);
        several edits may touch one file. Each must change its file.
      visibility: visibility of `<name>_impl`.
      kind: what the edited endpoint is ("mutant", "variant"), for messages.
      files: the files copied, relative to core/<subpackage>/ (default: the
        reference endpoint's); edits name files of this list.
      subpackage: the core package the files belong to ("runtime" for the
        Orchestrator's files, core/runtime/orchestrator_files.bzl); the copies
        keep their include paths ("runtime/...").
      deps: of `<name>_impl`, for files that need more than the reference
        endpoint's own (the Orchestrator's ORCHESTRATOR_DEPS).
      diffs: unified diffs (labels; paths a/core/..., b/core/...) applied
        after the copy with `patch -p1 --fuzz=0`, before `edits`. A diff
        that does not apply exactly, or names a file outside `files`, fails
        the build.
    """
    package = "//core" + ("/" + subpackage if subpackage else "")
    tree = name + "_tree/core/" + (subpackage + "/" if subpackage else "")
    outs = [tree + f for f in files]
    cmds = ["set -e"]
    for f in files:
        cmds.append("mkdir -p $$(dirname $(@D)/%s%s) && cp $(location %s:%s) $(@D)/%s%s" %
                    (tree, f, package, f, tree, f))
    for d in diffs:
        # --batch: a file the diff names but the tree lacks is an error, not a prompt.
        cmds.append("chmod -R u+w $(@D)/%s_tree" % name)
        cmds.append(
            "patch -p1 --fuzz=0 --batch --no-backup-if-mismatch -s -d $(@D)/%s_tree -i $$PWD/$(location %s) || " %
            (name, d) +
            "{ echo \"%s %s: diff %s does not apply to core/%s (reference changed?)\" >&2; exit 1; }" %
            (kind, name, d, subpackage),
        )
    edited = []
    for f, expr in edits:
        if f not in files:
            fail("%s %s: %s is not a reference file" % (kind, name, f))
        if "'" in expr:
            fail("%s %s: edits may not contain single quotes" % (kind, name))
        copy = "$(@D)/%s%s" % (tree, f)
        if f not in edited:
            # The first edit of a file must change it from the reference.
            before = "$(location %s:%s)" % (package, f)
            cmds.append("chmod u+w " + copy)
        else:
            # A later edit of the same file must change it again.
            before = copy + ".before"
            cmds.append("cp %s %s" % (copy, before))
        cmds.append("perl -0pi -e '%s' %s" % (expr, copy))
        cmds.append(
            "if cmp -s %s %s; then " % (before, copy) +
            "echo \"%s %s: edit did not apply to %s:%s (reference changed?)\" >&2; exit 1; fi" %
            (kind, name, package, f),
        )
        if f in edited:
            cmds.append("rm " + before)
        edited.append(f)
    native.genrule(
        name = name + "_sources",
        srcs = ["%s:%s" % (package, f) for f in files] + diffs,
        outs = outs,
        cmd = "\n".join(cmds),
        testonly = True,
    )
    native.cc_library(
        name = name + "_impl",
        srcs = [tree + f for f in files if f.endswith(".cc")],
        hdrs = [tree + f for f in files if f.endswith(".h")],
        strip_include_prefix = name + "_tree/core",
        deps = deps,
        testonly = True,
        visibility = visibility,
    )
