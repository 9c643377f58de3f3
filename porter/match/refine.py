"""The one step between rule hits and a file's findings that makes them hold on real code: dead preprocessor
branches, private copies of toolkit headers, and one finding per spot.

`refine(findings, sf)` runs once per file after every rule has matched (porter.match.engine.run_rules), on the
sorted drafts of its findings (porter.match.draft), and runs the steps in the order below; each step's rule, reason
and public sources are in its own module's docstring (the step numbers are the ones those docstrings and the
comments use):
- porter.match.refine_preprocessor, C/C++ preprocessor arms: 1 dead branches (`#if 0`, the `#else` of `#if 1`); 1a
  arms the file's own integer `#define`s rule out;
  3 capability and toolkit tests with a fallback HIP compiles, old-toolkit arms; 3c older-GPU arms HIP takes;
  3a feature-define arms;
  3b toolkit introspection; 4 a drop-in library's own switch; 4a NVTX profiling switches; 4e Jetson switches;
  5 `#error`/`#warning` text; 6 `__CUDA_ARCH__ >= N` arms HIP never compiles; 6a device-pass-only arms; 6b
  wave-size arms for 32 lanes; 6c 64-bit mask notes in wave-size arms.
- porter.match.refine_code, C/C++ code and the knowledge base's renames: 2 private toolkit-header copies; 5b the
  code's own `warpSize`; 5h host-only warp constants; 5p, 5q files with no GPU code; 7 plain renames; 8a grid-wide
  barriers and cooperative launches.
- porter.match.refine_macros, a file's own definitions: 5r bodies of macros a translation unit never expands; 5s its
  own definition of a CUDA name (a `#define`, or a function: 5v).
- porter.match.refine_build, CMake, Make and shell: 2b copies of CMake's own CUDA modules; 5 message() and option()
  text; 4a NVTX if() blocks; 4c Windows-only blocks; 4f ndk-build (Android) files; 4g blocks of OFF options that only
  set variables; 4d blocks only a 64-bit Arm host takes; 5k architectures set OFF; 5j QUIET find_package probes; 4h
  libraries looked up in the Jetson multimedia API's paths; 5i
  one architecture choice per if() chain; 5f flags removed or only tested (`IN_LIST`, `REMOVE_ITEM`,
  `$(filter-out ...)`); 5g inspection tools; 5t nvcc spellings in a CUDA-language generator-expression arm beside a
  plain arm HIP takes.
- porter.match.refine_python, Python: 4b optional and probe imports; 5a pip's ignored dependency_links; 8d-8f,
  8j-8l the project's dtype names, probed dtypes, FNUZ tables, dtype tables, MX-format code; 5u requirements wheels
  a pinned CUDA torch brings; 8c/8i nvcc variables
  read with a default or written from the running GPU; 5e kernels CuPy compiles; 5l dual nvidia-smi/rocm-smi probes;
  5d self-tests; 5c printed and logged text; 5m string statements (docstrings); 5n other accelerator platforms'
  modules; 5o NVIDIA kernel-DSL modules.
- porter.match.refine_capability, capability tests: 8 Python tests Ampere and AMD answer alike, 8b a capability
  only recorded, compared or made a label; 8g, 8h C/C++ device-property tests every GPU answers alike or that only
  change a printed report.
- porter.match.refine_precedence: 9 one finding per spot, the most specific rule's, by rules/kb/precedence.yaml.
porter.match.refine_common holds what the steps share (a finding read as info with its reason in data, offsets,
code lines).
"""
from __future__ import annotations

from typing import Iterable

from porter.match.draft import Draft
# Names imported `as _X` keep the private names refine() called them by when the steps were in this module, so its
# body reads as it did.
from porter.match.refine_build import (BUILD_TYPE_RULES, BUILD_TYPE_WORD as _BUILD_TYPE_WORD, build_type_arms,
                                       ARM_HOST_WORD as _ARM_HOST_WORD, INSPECTOR_WORD as _INSPECTOR_WORD,
                                       LANGUAGE_WORD as _LANGUAGE_WORD, PAIRED_LANGUAGE_RULES, SAME_CHOICE_RULES,
                                       cmake_arm_host_blocks, cmake_module_copy,
                                       WINDOWS_WORD as _WINDOWS_WORD, cmake_profiling_blocks, cmake_removed,
                                       cmake_opt_in_blocks, OPT_IN_WORD as _OPT_IN_WORD,
                                       cmake_windows_blocks, filtered_out, inspector_argument, ndk_build,
                                       NDK_BUILD_FILES, no_architecture,
                                       paired_language, quiet_probe, same_choice, without_prose,
                                       JETSON_WORD as _JETSON_WORD, jetson_search)
from porter.match.refine_capability import (CAPABILITY_RULES, PROP_CAPABILITY_RULES, VERSION_RULE, ampere_path,
                                            capability_identity, fp8_threshold, legacy_capability, probe_keeper,
                                            probe_kept, report_only, version_record)
from porter.match.refine_code import (C_SOURCE_RULES, COOPERATIVE_RULES, COPY_DROPS as _COPY_DROPS,
                                      HOST_CONSTANT_RULES, OWN_WARPSIZE_RULES, cooperative, host_constant, host_file,
                                      own_warpsize, plain_rename, private_toolkit_copy)
from porter.match.refine_common import as_info as _as_info, offset as _offset
from porter.match.refine_macros import (OWN_DEFINITION_RULES, OWN_FUNCTION_RULES, own_definition, own_function,
                                       unexpanded, unexpanded_bodies)
from porter.match.refine_precedence import PRECEDENCE_FILE, PrecedenceError, one_per_spot, specific
from porter.match.refine_preprocessor import (ARCH_ARM_MASK_RULES, ARCH_ARM_MISSING_RULES, DEVICE_PASS_RULES,
                                              FALLBACK_RULES, FEATURE_DEFINE_RULES, INTROSPECTION_RULES,
                                              OLD_TOOLKIT_RULES, OPTIONAL_DROPIN_RULES, TOOLKIT_WORDS as _TOOLKIT_WORDS,
                                              dead_lines, device_pass_arm, diagnostic_line as _diagnostic_line,
                                              fallback_tests, file_defined, file_defined_arms, feature_defines,
                                              introspection, jetson_only, jetson_switch_arms, legacy_arm,
                                              newer_arch_arm as _newer_arch_arm, old_toolkit_arms, old_toolkit_lines,
                                              older_arch, older_arch_tests, optional_dropin, profiling_switch,
                                              MASK_WIDTH_RULES, WAVE64_RULES, wave32_arm)
from porter.match.refine_python import (BARE_EXCEPT as _BARE_EXCEPT, CUPY_KERNEL as _CUPY_KERNEL, DTYPE_TABLE_RULES,
                                        ENV_DEFAULT_RULES, MX_RULES, dtype_table, mx_format,
                                        FNUZ_ARM_RULES, FNUZ_TABLE_RULES, HIPRTC_RULES, OPTIONAL_IMPORT_RULES,
                                        OWN_NAME_RULES, TEST_FIXTURE_RULES, VERSION_NONE_RULES, fnuz_arm,
                                        test_fixture, version_none_safe,
                                        NVIDIA_DSL_RULES, PROBED_DTYPE_RULES, PROBED_IMPORT_RULES,
                                        PY_MESSAGE_HINT as _PY_MESSAGE_HINT, ROCM_TOOL as _ROCM_TOOL, SMI_RULES,
                                        PY_TEXT_HINT as _PY_TEXT_HINT,
                                        TORCH_PIN as _TORCH_PIN, torch_closure,
                                        cupy_kernels, dual_probe, env_default, fnuz_table, ignored_by_pip,
                                        message_call_spans, nvidia_dsl, nvidia_dsl_import, optional_import,
                                        optional_import_blocks, other_platform, own_arch, platform_module,
                                        probed_dtype, project_name, ROCM_ARM_HINT as _ROCM_ARM_HINT, ROCM_ARM_RULES,
                                        rocm_sibling_arm, self_test, self_test_block,
                                        without_message_text, without_string_statements)
from porter.model import Severity
from porter.source.parse import SourceFile
from porter.source.preprocessor import groups_around, may_hold_directives, preprocessed, wave_size_arms

# What other modules and the tests import from here, besides refine itself.
__all__ = ["PRECEDENCE_FILE", "PrecedenceError", "dead_lines", "private_toolkit_copy", "refine", "specific"]


def _in_host_blocks(findings: list[Draft], blocks: Iterable[tuple[int, int, str, int]], kind: str, host: str,
                    why: str) -> list[Draft]:
    """Each finding inside one of `blocks` (first, last line, condition, if line) - CMake arms only a host ROCm never
    builds on takes (steps 4c, 4d) - read info with data `kind`."""
    blocks = tuple(blocks)
    return [next((_as_info(f, kind, f"in a block only {host} takes ({cond}, line {at}): {why}")
                  for a, b, cond, at in blocks if a <= f.line <= b and f.severity > Severity.INFO), f)
            for f in findings]


def refine(findings: list[Draft], sf: SourceFile, rocm_names: Iterable[str] = (),
           trust_copies: bool = True) -> list[Draft]:
    """The file's findings without dead-branch hits, toolkit-copy declarations and duplicates (see the module doc);
    `rocm_names`: the repository's ROCm-side macros beyond the built-in ones (configuration's and derived)."""
    if not findings:
        return findings
    dead = dead_lines(sf)
    if dead:
        findings = [f for f in findings if f.line not in dead]
    if sf.path.rsplit("/", 1)[-1] in NDK_BUILD_FILES:
        findings = [ndk_build(f) for f in findings]
    if findings and sf.language == "cuda" and may_hold_directives(sf.code):
        groups = preprocessed(sf).groups
        ruled_out = file_defined_arms(sf)
        if ruled_out:
            findings = [file_defined(f, ruled_out) for f in findings]
        # Code in a ROCm-only arm is kept: port-awareness (porter.portaware) reads it handled, port work done.
        # Only DEV009/DEV010 findings read the fallback lines: a file without one skips their search (~5% of a
        # cold cuda-samples scan, mostly _output_only reading each group's statements).
        fallback = (fallback_tests(groups, sf, rocm_names) if any(f.rule in FALLBACK_RULES for f in findings)
                    else frozenset())
        old_toolkit = old_toolkit_lines(groups)
        findings = [f for f in findings if not (f.rule in FALLBACK_RULES and f.line in fallback)
                    and not (f.rule in OLD_TOOLKIT_RULES and f.line in old_toolkit)]
        if b"__CUDA_ARCH__" in sf.code and any(f.rule in FALLBACK_RULES and f.severity > Severity.INFO
                                               for f in findings):
            older = older_arch_tests(groups, sf)
            if older:
                findings = [older_arch(f, older) for f in findings]
        around = groups_around(groups)  # each finding asks only the groups around its line, not every group
        if any(f.rule in FEATURE_DEFINE_RULES for f in findings):
            findings = [feature_defines(f, around(f.line), sf) for f in findings]
        if any(f.rule in INTROSPECTION_RULES for f in findings):
            findings = [introspection(f, around(f.line), sf) for f in findings]
        legacy = old_toolkit_arms(groups) if any(w in sf.code for w in _TOOLKIT_WORDS) else {}
        if legacy:
            findings = [legacy_arm(f, legacy) for f in findings]
        if any(f.rule in ARCH_ARM_MASK_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [f for f in findings if not (f.rule in ARCH_ARM_MASK_RULES and _newer_arch_arm(pre, f.line))]
        if any(f.rule in ARCH_ARM_MISSING_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [_as_info(f, "hip_compiles", "in a `__CUDA_ARCH__ >= N` arm: HIP leaves __CUDA_ARCH__ undefined "
                                                    "and compiles the #else, which has code")
                        if f.rule in ARCH_ARM_MISSING_RULES and f.severity > Severity.INFO
                        and _newer_arch_arm(pre, f.line) else f for f in findings]
        if any(f.rule in DEVICE_PASS_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [device_pass_arm(f, pre, sf) for f in findings]
        if any(f.rule in OPTIONAL_DROPIN_RULES for f in findings):
            findings = [optional_dropin(f, around(f.line)) for f in findings]
        if b"NVTX" in sf.code.upper():
            findings = [profiling_switch(f, around(f.line)) for f in findings]
        jetson = jetson_switch_arms(sf)
        if jetson:
            findings = [jetson_only(f, jetson) for f in findings]
        if any(f.rule in WAVE64_RULES or f.rule in MASK_WIDTH_RULES for f in findings) and b"== 32" in sf.code:
            arms = wave_size_arms(preprocessed(sf))
            if arms:
                findings = [wave32_arm(f, arms) for f in findings]
    if findings and sf.language == "cuda" and b"define" in sf.code:
        bodies = unexpanded_bodies(sf)
        if bodies:
            findings = [unexpanded(f, bodies) for f in findings]
        if any(f.rule in OWN_DEFINITION_RULES for f in findings):
            findings = [own_definition(f, sf) for f in findings]
    if findings and sf.language == "cuda" and sf.functions and any(f.rule in OWN_FUNCTION_RULES for f in findings):
        findings = [own_function(f, sf) for f in findings]
    if findings and sf.language == "cuda" and b"warpSize" in sf.code and any(f.rule in OWN_WARPSIZE_RULES for f in findings):
        findings = [f for f in findings if not (f.rule in OWN_WARPSIZE_RULES and own_warpsize(sf, f.line, f.column))]
    if findings and sf.language == "cuda" and any(f.rule in HOST_CONSTANT_RULES for f in findings):
        findings = [host_constant(f, sf) for f in findings]
    if findings and sf.language == "cuda" and any(f.rule in HOST_CONSTANT_RULES or f.rule in C_SOURCE_RULES
                                                  for f in findings):
        findings = [host_file(f, sf) for f in findings]
    if findings and sf.language == "cuda" and any(f.category == "api" for f in findings):
        findings = [f for f in findings if not (f.category == "api" and _diagnostic_line(sf, f.line))]
    if findings and sf.language == "cmake" and (b"message" in sf.data or b"option" in sf.data or b"CACHE" in sf.data
                                                 or b"rint" in sf.data or b"ummary" in sf.data or b"arn" in sf.data):
        findings = without_prose(findings, sf)
    if findings and sf.language == "cmake" and b"NVTX" in sf.code.upper():
        blocks = cmake_profiling_blocks(sf)
        findings = [next((_as_info(f, "optional", f"only built with the profiling switch {switch} (line {at})")
                          for a, b, switch, at in blocks if a <= f.line <= b and f.severity > Severity.INFO), f)
                    for f in findings]
    if findings and sf.language == "cmake" and _OPT_IN_WORD.search(sf.code):
        opt_in = cmake_opt_in_blocks(sf)  # once per file, not once per finding
        findings = [next((_as_info(f, "opt_in", f"only built with the option {name} (line {at}), which this file "
                                                "declares OFF: a build variant the user opts into")
                          for a, b, name, at in opt_in if a <= f.line <= b
                          and f.severity > Severity.INFO), f) for f in findings]
    if findings and sf.language == "cmake" and _WINDOWS_WORD.search(sf.code):
        findings = _in_host_blocks(findings, cmake_windows_blocks(sf), "windows_only", "a Windows build",
                                   "ROCm on Instinct GPUs builds on Linux")
    if findings and sf.language == "cmake" and _ARM_HOST_WORD.search(sf.code):
        findings = _in_host_blocks(findings, cmake_arm_host_blocks(sf), "arm_host_only", "a 64-bit Arm host",
                                   "NVIDIA's Jetson/Grace platforms; ROCm runs on x86-64 hosts")
    if findings and sf.language == "cmake" and b"OFF" in sf.code and any(f.rule in SAME_CHOICE_RULES for f in findings):
        findings = [no_architecture(f, sf) for f in findings]
    if findings and sf.language == "cmake" and b"QUIET" in sf.code.upper():
        findings = [quiet_probe(f, sf) for f in findings]
    if findings and sf.language == "cmake" and _JETSON_WORD.search(sf.code):
        findings = [jetson_search(f, sf) for f in findings]
    if sum(f.rule in SAME_CHOICE_RULES for f in findings) > 1 and sf.language == "cmake":
        findings = same_choice(findings, sf)
    if sum(f.rule in BUILD_TYPE_RULES for f in findings) > 1 and sf.language == "cmake" \
            and _BUILD_TYPE_WORD.search(sf.code):
        findings = build_type_arms(findings, sf)
    if findings and sf.language == "cmake" and (b"IN_LIST" in sf.code or b"REMOVE_ITEM" in sf.code):
        removed = cmake_removed(sf)
        findings = [f for f in findings if not any(a <= _offset(sf, f.line, f.column) < b for a, b in removed)]
    if findings and sf.language == "cmake" and _LANGUAGE_WORD.search(sf.code) and any(
            f.rule in PAIRED_LANGUAGE_RULES for f in findings):
        findings = paired_language(findings, sf)
    if findings and sf.language in ("make", "shell") and _INSPECTOR_WORD.search(sf.code):
        findings = [inspector_argument(f, sf) for f in findings]
    if findings and sf.language == "make" and b"filter-out" in sf.code:
        removed = filtered_out(sf)
        findings = [f for f in findings if not any(a <= _offset(sf, f.line, f.column) < b for a, b in removed)]
    # `trust_copies` False (an --isolated diff: the file is part of the change): a file's own claim to be NVIDIA's
    # header is not taken, as a change's own suppressions and ROCm arms are not (porter.diff._reopen).
    if trust_copies and findings and sf.language == "cmake" and b"CUDA" in sf.data:
        module = cmake_module_copy(sf)
        if module is not None:
            findings = [_as_info(f, "cmake_module", f"a copy of CMake's own {module} module: the project's calls of it "
                                                    "are the port's items") if f.severity > Severity.INFO else f
                        for f in findings]
    if trust_copies and private_toolkit_copy(sf):
        findings = [f for f in findings if f.category not in _COPY_DROPS]
    findings = [plain_rename(f) for f in findings]
    if sf.language == "python" and (b"ImportError" in sf.code or b"ModuleNotFoundError" in sf.code
                                    or b"Exception" in sf.code or _BARE_EXCEPT.search(sf.code)):
        if any(f.rule in OPTIONAL_IMPORT_RULES or f.rule in PROBED_IMPORT_RULES for f in findings):
            tries = optional_import_blocks(sf)
            findings = [optional_import(f, tries, sf) for f in findings]
    if findings and sf.language == "requirements" and _TORCH_PIN.search(sf.code):
        findings = [torch_closure(f, sf) for f in findings]
    if sf.language == "python" and b"dependency_links" in sf.code:
        ignored = ignored_by_pip(sf)
        findings = [f for f in findings if not any(a <= f.line <= b for a, b in ignored)]
    if findings and sf.language == "cuda" and any(f.rule in COOPERATIVE_RULES for f in findings):
        findings = [cooperative(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in OWN_NAME_RULES for f in findings):
        findings = [project_name(f, sf) for f in findings]
    if sf.language == "python" and b"hasattr" in sf.code and any(f.rule in PROBED_DTYPE_RULES for f in findings):
        findings = [probed_dtype(f, sf) for f in findings]
    if sf.language == "python" and b"fnuz" in sf.code and any(f.rule in FNUZ_TABLE_RULES for f in findings):
        findings = [fnuz_table(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in DTYPE_TABLE_RULES for f in findings):
        findings = [dtype_table(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in MX_RULES for f in findings):
        findings = [mx_format(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in ROCM_ARM_RULES for f in findings) and _ROCM_ARM_HINT.search(sf.code):
        findings = [rocm_sibling_arm(f, sf) for f in findings]
    if sf.language == "python" and b"fnuz" in sf.code and any(f.rule in FNUZ_ARM_RULES for f in findings):
        findings = [fnuz_arm(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in VERSION_NONE_RULES for f in findings):
        findings = [version_none_safe(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in TEST_FIXTURE_RULES for f in findings):
        findings = [test_fixture(f, sf) for f in findings]
    if sf.language == "python" and b"torch.version.cuda" in sf.code and any(f.rule == VERSION_RULE for f in findings):
        findings = [version_record(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in CAPABILITY_RULES for f in findings):
        findings = [ampere_path(f, sf.code) for f in findings]
        findings = [capability_identity(f, sf) for f in findings]
        if b"get_device_capability" in sf.code:
            findings = [fp8_threshold(f, sf) for f in findings]
    if sf.language == "cuda" and any(f.rule in PROP_CAPABILITY_RULES for f in findings):
        keep = probe_keeper(findings, sf)
        if keep is not None:
            findings = [probe_kept(f) if i == keep else f for i, f in enumerate(findings)]
        findings = [legacy_capability(f, sf.code) for f in findings]
        findings = [report_only(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in ENV_DEFAULT_RULES for f in findings) and (
            b"getenv" in sf.code or b"environ" in sf.code):
        findings = [env_default(f, sf) for f in findings]
        if b"get_device_capability" in sf.code:
            findings = [own_arch(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in HIPRTC_RULES for f in findings) and _CUPY_KERNEL.search(sf.code):
        findings = cupy_kernels(findings, sf)
    if sf.language == "python" and _ROCM_TOOL.search(sf.data) and any(f.rule in SMI_RULES for f in findings):
        findings = [dual_probe(f, sf) for f in findings]
    if sf.language == "python" and findings and b"__main__" in sf.data:
        block = self_test_block(sf)
        if block is not None:
            findings = [self_test(f, block) for f in findings]
    if sf.language == "python" and findings and _PY_MESSAGE_HINT.search(sf.code):
        spans = message_call_spans(sf)
        if spans:
            findings = [f for f in findings if not any(a <= (f.line, f.column) < b for a, b in spans)]
    if sf.language == "python" and findings and sf.string_spans and _PY_TEXT_HINT.search(sf.code):
        findings = without_message_text(findings, sf)
    if sf.language == "python" and findings and sf.string_spans:
        findings = without_string_statements(findings, sf)
    if sf.language == "python" and findings:
        platform = other_platform(sf.path)
        if platform is not None:
            findings = [platform_module(f, platform) for f in findings]
    if sf.language == "python" and (b"cutlass" in sf.code or b"cuda.tile" in sf.code) \
            and any(f.rule in NVIDIA_DSL_RULES for f in findings):
        dsl = nvidia_dsl_import(sf)
        if dsl is not None:
            findings = [nvidia_dsl(f, dsl) for f in findings]
    return one_per_spot(findings)
