"""generated_file: a file a certification generates, written from a template
of certify/ with ctx.actions.expand_template (Bazel 4 has no such native rule),
so the generated C++ is kept in .tpl files rather than in Starlark strings."""

def _after_files(target):
    """What `out` waits for: a C++ library's compiled objects (its compile
    is the point, and its archive and shared library would be linked for
    nothing), any other target's files."""
    groups = target[OutputGroupInfo] if OutputGroupInfo in target else None
    if groups and hasattr(groups, "compilation_outputs"):
        return groups.compilation_outputs
    return target[DefaultInfo].files

def _generated_file_impl(ctx):
    out = ctx.outputs.out
    if not ctx.attr.after:
        ctx.actions.expand_template(
            template = ctx.file.template,
            output = out,
            substitutions = ctx.attr.substitutions,
        )
        return [DefaultInfo(files = depset([out]))]

    # expand_template takes no inputs but its template: expand beside `out`,
    # then copy once `after` is built, so nothing that includes `out` compiles
    # before it.
    expanded = ctx.actions.declare_file(ctx.label.name + ".expanded")
    ctx.actions.expand_template(
        template = ctx.file.template,
        output = expanded,
        substitutions = ctx.attr.substitutions,
    )
    ctx.actions.run_shell(
        outputs = [out],
        inputs = depset([expanded], transitive = [_after_files(d) for d in ctx.attr.after]),
        command = "cp \"$1\" \"$2\"",
        arguments = [expanded.path, out.path],
        mnemonic = "SpsqGeneratedFile",
    )
    return [DefaultInfo(files = depset([out]))]

generated_file = rule(
    implementation = _generated_file_impl,
    doc = "Writes `out`: `template` with each key of `substitutions` replaced by its value.",
    attrs = {
        "out": attr.output(mandatory = True),
        "template": attr.label(allow_single_file = True, mandatory = True),
        "substitutions": attr.string_dict(),
        "after": attr.label_list(doc = "Targets built before `out` is written."),
    },
)
