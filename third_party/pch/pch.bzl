"""spsq_pch: a header and, under g++, its precompiled copy beside it.

A dependent source that is compiled with `-include <include_prefix>/<header>`
then reads the precompiled copy instead of parsing the header, when g++ finds
the copy valid for that source's flags (it is built here with the
configuration's own C++ compile flags, position-independent, as the
cc_library sources that use it are); otherwise g++ parses the header as
usual. Other compilers get the header alone: clang refuses a precompiled
header built with options other than its own, where g++ falls back.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME")

def _spsq_pch_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    src = ctx.file.header
    prefix = ctx.label.name + "_include"
    header = ctx.actions.declare_file("%s/%s/%s" % (prefix, ctx.attr.include_prefix, src.basename))
    ctx.actions.symlink(output = header, target_file = src)
    deps = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    deps_ctx = deps.compilation_context
    headers = [header]
    tool = cc_common.get_tool_for_action(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
    )

    # The autoconfigured toolchain names g++ "compiler", clang "clang".
    if cc_toolchain.compiler != "clang" and "clang" not in tool:
        pch = ctx.actions.declare_file(header.basename + ".gch", sibling = header)
        variables = cc_common.create_compile_variables(
            cc_toolchain = cc_toolchain,
            feature_configuration = features,
            source_file = src.path,
            output_file = pch.path,
            user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts +
                                 ["-x", "c++-header"],
            include_directories = deps_ctx.includes,
            quote_include_directories = deps_ctx.quote_includes,
            system_include_directories = deps_ctx.system_includes,
            preprocessor_defines = deps_ctx.defines,
            use_pic = True,
        )
        ctx.actions.run(
            executable = tool,
            arguments = cc_common.get_memory_inefficient_command_line(
                feature_configuration = features,
                action_name = CPP_COMPILE_ACTION_NAME,
                variables = variables,
            ),
            env = cc_common.get_environment_variables(
                feature_configuration = features,
                action_name = CPP_COMPILE_ACTION_NAME,
                variables = variables,
            ),
            inputs = depset([src], transitive = [cc_toolchain.all_files, deps_ctx.headers]),
            outputs = [pch],
            mnemonic = "SpsqPch",
            progress_message = "Precompiling %s" % src.short_path,
        )
        headers.append(pch)
    own = CcInfo(compilation_context = cc_common.create_compilation_context(
        headers = depset(headers),
        includes = depset([header.root.path + "/" + header.owner.package + "/" + prefix]),
    ))
    return [
        DefaultInfo(files = depset(headers)),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = [deps]),
    ]

spsq_pch = rule(
    implementation = _spsq_pch_impl,
    attrs = {
        "header": attr.label(allow_single_file = [".h"], mandatory = True),
        "include_prefix": attr.string(mandatory = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
