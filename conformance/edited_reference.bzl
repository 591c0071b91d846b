"""edited_reference: the reference L2 endpoint with perl edits, as a library.

Copies every file of the reference endpoint into the package's own include
tree at build time and applies edits to the copies (perl substitutions, never
an #ifdef in the reference). The genrule fails if an edit no longer matches the
reference, so a refactoring of core/ cannot silently turn an edited endpoint
back into the reference. Used by mutants (one defect each,
//conformance/mutants) and legal variants (another allowed choice each,
//conformance/variants). The files are the one list of core/reference_files.bzl.
"""

load("//core:reference_files.bzl", "REFERENCE_FILES")

def edited_reference(name, edits, visibility = None, kind = "edited reference"):
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
    """
    tree = name + "_tree/core/"
    outs = [tree + f for f in REFERENCE_FILES]
    cmds = ["set -e"]
    for f in REFERENCE_FILES:
        cmds.append("mkdir -p $$(dirname $(@D)/%s%s) && cp $(location //core:%s) $(@D)/%s%s" %
                    (tree, f, f, tree, f))
    edited = []
    for f, expr in edits:
        if f not in REFERENCE_FILES:
            fail("%s %s: %s is not a reference file" % (kind, name, f))
        if "'" in expr:
            fail("%s %s: edits may not contain single quotes" % (kind, name))
        copy = "$(@D)/%s%s" % (tree, f)
        if f not in edited:
            # The first edit of a file must change it from the reference.
            before = "$(location //core:%s)" % f
            cmds.append("chmod u+w " + copy)
        else:
            # A later edit of the same file must change it again.
            before = copy + ".before"
            cmds.append("cp %s %s" % (copy, before))
        cmds.append("perl -0pi -e '%s' %s" % (expr, copy))
        cmds.append(
            "if cmp -s %s %s; then " % (before, copy) +
            "echo \"%s %s: edit did not apply to core/%s (reference changed?)\" >&2; exit 1; fi" %
            (kind, name, f),
        )
        if f in edited:
            cmds.append("rm " + before)
        edited.append(f)
    native.genrule(
        name = name + "_sources",
        srcs = ["//core:" + f for f in REFERENCE_FILES],
        outs = outs,
        cmd = "\n".join(cmds),
        testonly = True,
    )
    native.cc_library(
        name = name + "_impl",
        srcs = [tree + f for f in REFERENCE_FILES if f.endswith(".cc")],
        hdrs = [tree + f for f in REFERENCE_FILES if f.endswith(".h")],
        strip_include_prefix = name + "_tree/core",
        testonly = True,
        visibility = visibility,
    )
