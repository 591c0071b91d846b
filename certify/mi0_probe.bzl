"""spsq_mi0_probe: does the endpoint under test compile with MaxInflight 0?

"The valid range is 1 <= MaxInflight <= depth" (spec section 1, S1.WIN.7): an
endpoint may refuse MaxInflight 0 with a static_assert, which no test binary
can observe, or compile it and report BAD_ARGUMENT at construction. This rule
compiles certify/mi0_probe.cc with -fsyntax-only against a certification's
config, with the C++ toolchain's own compile command line: with MaxInflight
0, and only if that fails, with MaxInflight 1, which must then compile (a
flag or include mistake fails the build with the compiler's message instead
of passing as a rejection). It writes a header for the suite (mi0.h.tpl):

    #define SPSQ_CERT_MI0_COMPILES 0 or 1
    #define SPSQ_CERT_MI0_ERROR "<the first compiler error line>" (or "")
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME")

# $1 the header, $2 its template, $3 the certification, $4 the compiler, then
# its arguments.
_SCRIPT = r"""
set -u
out="$1"; tpl="$2"; cert="$3"; cc="$4"; shift 4
if log=$("$cc" "$@" -fsyntax-only -DSPSQ_MI0_PROBE_N=0 2>&1); then
  compiles=1; err=""
else
  if ! log1=$("$cc" "$@" -fsyntax-only -DSPSQ_MI0_PROBE_N=1 2>&1); then
    echo "MaxInflight 0 probe of $cert: the probe does not compile even with" \
         "MaxInflight 1, so a refusal of 0 would mean nothing:" >&2
    printf '%s\n' "$log1" >&2
    exit 1
  fi
  compiles=0
  # Without colour escapes (the toolchain may ask for -fcolor-diagnostics).
  log=$(printf '%s\n' "$log" | sed -e 's/\x1b\[[0-9;]*[mK]//g')
  err=$(printf '%s\n' "$log" | grep -m1 -E '(^|: )(fatal )?error:' || true)
  [ -n "$err" ] || err=$(printf '%s\n' "$log" | grep -m1 . || true)
  # One C string of printable ASCII (GCC's typographic quotes become plain
  # ones; clang warns on invalid UTF-8), backslashes and quotes escaped.
  err=$(printf '%s' "$err" | LC_ALL=C sed -e "s/\xe2\x80[\x98\x99]/'/g" |
        LC_ALL=C tr -cd '\040-\176' | cut -c1-400 |
        sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
fi
# The template's placeholders replaced by prefix and suffix, not by sed or
# ${var/.../...}: the compiler's message may hold any of their special
# characters.
fill() {
  case "$1" in
    *"$2"*) printf '%s%s%s' "${1%%"$2"*}" "$3" "${1#*"$2"}" ;;
    *) printf '%s' "$1" ;;
  esac
}
while IFS= read -r line; do
  line=$(fill "$line" '%{certification}' "$cert")
  line=$(fill "$line" '%{compiles}' "$compiles")
  line=$(fill "$line" '%{error}' "$err")
  printf '%s\n' "$line"
done < "$tpl" > "$out"
"""

def _spsq_mi0_probe_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    comp = cc.compilation_context
    copts = [ctx.expand_make_variables("copts", c, {}) for c in ctx.attr.copts]
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        source_file = ctx.file.src.path,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + copts,
        include_directories = comp.includes,
        quote_include_directories = comp.quote_includes,
        system_include_directories = comp.system_includes,
        preprocessor_defines = comp.defines,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
    )
    argv = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
        variables = variables,
    )
    # The shell's environment (PATH for the script's tools), then the
    # toolchain's, as a compile action has it.
    env = dict(ctx.configuration.default_shell_env)
    env.update(cc_common.get_environment_variables(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
        variables = variables,
    ))
    ctx.actions.run_shell(
        outputs = [ctx.outputs.out],
        inputs = depset(
            [ctx.file.src, ctx.file._template],
            transitive = [comp.headers, cc_toolchain.all_files],
        ),
        command = _SCRIPT,
        arguments = [ctx.outputs.out.path, ctx.file._template.path, ctx.attr.certification,
                     compiler] + argv,
        env = env,
        mnemonic = "SpsqMi0Probe",
        progress_message = "Probing MaxInflight 0 of %s" % ctx.attr.certification,
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

spsq_mi0_probe = rule(
    implementation = _spsq_mi0_probe_impl,
    doc = "Writes `out`, saying whether `src` compiles with SPSQ_MI0_PROBE_N 0.",
    attrs = {
        "out": attr.output(mandatory = True),
        "certification": attr.string(mandatory = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "src": attr.label(
            allow_single_file = True,
            default = Label("//certify:mi0_probe.cc"),
        ),
        "_template": attr.label(
            allow_single_file = True,
            default = Label("//certify:mi0.h.tpl"),
        ),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
    incompatible_use_toolchain_transition = True,
)
