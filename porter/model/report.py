"""What a scan returns: one FileResult per file (the cached unit) and the whole ScanResult."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Callable, Iterable, Mapping, Protocol

from porter.model.finding import Finding, Severity, Skipped
from porter.model.kernel import DeviceHelper, Kernel, Launch, Launcher, PassedName, TritonHelper

SCHEMA_VERSION = "1.0"
# More kernels than this sharing one name (a repository's choice: one `k` per file) and their launches are listed
# under none of them (ScanResult.launches_of): which one a launch starts is not known (the kernel analysis folds
# none), and listing every launch under every namesake made each report's size K x L. Overloads launched beside
# them are a handful.
MAX_NAMESAKES = 64


@dataclass(frozen=True)
class VectorFacts:
    """What porter.match.refine_vectors reads from one C/C++/CUDA file, taken from the scan's own read and parse so
    that pass reads and parses no file again: the vector types the file defines a free compound operator for
    (`operator+=(float3 &a, float3 b)`), those it gives one itself (those, or all of DEV053's when it includes
    helper_math.h), and DEV053's finding at each compound assignment of two same-type vector operands of any of the
    rule's types (the pass keeps those whose type a header the file reaches through its includes defines)."""

    defined: tuple[str, ...] = ()  # sorted
    own: tuple[str, ...] = ()  # sorted
    uses: tuple[Finding, ...] = ()  # in file order, without fingerprints


@dataclass(frozen=True)
class AsmHelpers:
    """What porter.match.refine_helpers reads from one C/C++/CUDA file holding DEV001 findings (file_helpers), taken
    from the scan's own parse so the unused-PTX-helper pass parses no file again: the lines of the file's DEV001
    findings it looked at, and for each line inside an on-demand helper only other files could use, that helper
    (line, name, first byte, last byte)."""

    lines: tuple[int, ...] = ()  # sorted
    helpers: tuple[tuple[int, str, int, int], ...] = ()  # by line


@dataclass(frozen=True)
class Definition:
    """One function definition of a C/C++/CUDA file as porter.match.refine_unreferenced judges it (reference_facts):
    where it is, and what of its deadness the file alone decides."""

    name: str
    start_byte: int
    end_byte: int
    start: tuple[int, int]  # (line, byte column from 0) of its first byte
    end: tuple[int, int]  # (line, byte column from 0) of the byte after its last
    is_kernel: bool
    template: bool  # inside a template declaration
    on_demand: bool  # emitted only where used (template, member, inline, static, constexpr)
    local_ok: bool  # may be dead as far as this file tells (the repository's entry point and pastes aside)
    library_only: bool  # in a header, or a plain kernel: not dead in a repository with no entry point
    reached: bool  # hip-clang may compile its first line
    asm_parses: bool  # every asm operand constraint in it is one the AMDGPU target parses
    outer: int  # index of the innermost definition around it, -1 at file scope


@dataclass(frozen=True)
class ReferenceFacts:
    """What porter.match.refine_unreferenced reads from one C/C++/CUDA file, taken from the scan's own read (and
    parse, where the repository's macros leave it as the pass would parse) so the pass reads and parses no file again:
    its size, whether it holds a program's entry point, the token pastes of its macros, its definitions (sorted by
    first byte), and for each identifier word of its code (comments blanked) the definitions, in file order, whose
    bodies mention it where hip-clang may compile the mention (-1: at file scope, not a mere declaration of it);
    in a test, benchmark or example every word is listed, mentions or not."""

    size: int
    entry: bool
    pastes: tuple[tuple[str, str], ...]
    definitions: tuple[Definition, ...]
    mentions: tuple[tuple[str, tuple[int, ...]], ...]  # by word


@dataclass(frozen=True)
class ImportReading:
    """Calls of names a Python file imports (`checks.cuda_capability_compare`, `is_fp8_compile_supported`) read as
    CUDA tests in that file (porter.portaware.pymodules): the spans they add to the file's own (as PortFacts.spans)
    whose checks test these calls (all must be CUDA-only, or one of them: `any_of`), and apart the spans that also read the file's
    public names as private ones (`public`), with the public names whose definitions those spans hold (`defines`):
    they hold only when no other module mentions those names."""

    calls: tuple[str, ...]
    spans: tuple[tuple[tuple[int, int], tuple[int, int], str, int], ...] = ()
    public: tuple[tuple[tuple[int, int], tuple[int, int], str, int], ...] = ()
    defines: tuple[str, ...] = ()
    # the checks are `and` chains of these calls (and names bound to such chains): any one CUDA-only call suffices
    any_of: bool = False


@dataclass(frozen=True)
class ModuleFacts:
    """One Python file's part of the cross-module guard reading (porter.portaware.pymodules.module_facts), taken
    from the scan's own read and parse so port status joins the project's modules without reading a file again."""

    # its module-level functions whose value no ROCm build finds true (guards.cuda_only_functions), sorted
    cuda_only: tuple[str, ...] = ()
    # its module-level functions as (name, first line, last line)
    functions: tuple[tuple[str, int, int], ...] = ()
    # the sorted CRC-32s of the words its bytes hold, as base64 of their 32-bit array (a name's mentions)
    words: str = ""
    # a file with findings only: its imports as written (bound name, dotted module, imported name or "" for a
    # module), each name it imports by name with the (line, column) of its every use, and its readings
    imports: tuple[tuple[str, str, str], ...] = ()
    uses: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()
    readings: tuple[ImportReading, ...] = ()


@dataclass(frozen=True)
class PortFacts:
    """What the port-status stage reads from one file (porter.portaware.status.file_facts), as plain values so they
    are cached with the file's result or by the file's content. A C/C++/CUDA file gives its directives, toolkit
    tests, line count and alias declarations; a CMake file or setup.py the sources each build names (and CMake its
    own line regions); C/C++ and Python files the spans their runtime vendor checks guard."""

    directives: tuple[tuple[int, int, str, str], ...] = ()  # (line, end_line, kind, text): preprocessor.Directive
    # `#if`/`#elif` lines testing the CUDA toolkit's version, whose `#else` is the HIP path (Preprocessed.toolkit_lines)
    toolkit: tuple[int, ...] = ()
    total: int = 0  # lines (C/C++/CUDA), for the regions the directives make
    aliases: tuple[tuple[int, str], ...] = ()  # (line, name) of each `using`/`typedef`/namespace alias declared
    errors: tuple[int, ...] = ()  # lines of its `#error` directives (C/C++/CUDA; comments blanked)
    # last lines of the `#if`/`#elif`/`#else` directives whose arm holds no code: blanks, comments, an `#error` or a
    # "not implemented" throw (porter.portaware.status.hollow_arms)
    hollow: tuple[int, ...] = ()
    # Runtime vendor checks: (start, end, side, line of the check), start and end as (line, byte column)
    spans: tuple[tuple[tuple[int, int], tuple[int, int], str, int], ...] = ()
    refs: tuple[tuple[str, str, str, str | None], ...] = ()  # (target, side, where, twin): portaware.scope.Reference
    # A kernel-builder build.toml's (CUDA source, gfx archs its ROCm twin is built for) when the ROCm table lists
    # `rocm-archs` (porter.portaware.kernel_builder.twin_archs)
    twin_archs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    regions: tuple[tuple[int, int, str, int], ...] = ()  # a CMake file's own (start, end, side, guard line)
    # A CMake file's vendor-named if() tests (USE_CUDA_TOOLKIT, USE_ROCM_TOOLKIT): a CUDA switch whose ROCm twin
    # another CMake file of the repository tests is a guard there too (porter.portaware.status)
    # (a setup.py: portaware.status.TORCH_EXTENSION_ONLY when it builds torch extensions and runs no CMake/make)
    tested: tuple[str, ...] = ()
    # C/C++: CUDA- and HIP-named class definitions (name, first line, last line) and forward declarations
    # (line, name) of the file (porter.portaware.twins)
    classes: tuple[tuple[str, int, int], ...] = ()
    forward: tuple[tuple[int, str], ...] = ()
    # A CMake file's generator expressions that apply to CUDA-language sources only (line, first column, end line,
    # end column) and the commands enabling the CUDA language (line, side of the arm holding it, guard line)
    # (porter.portaware.scope.cuda_language_spans / cuda_language_enables)
    language_spans: tuple[tuple[int, int, int, int], ...] = ()
    language_enables: tuple[tuple[int, str, int], ...] = ()
    modules: tuple[tuple[int, str], ...] = ()  # a CMake file's (line, module file name) loads (cmake_module_uses)
    # A Makefile.am's directories built for one vendor only: (directory, side, "path:line" of the conditional)
    components: tuple[tuple[str, str, str], ...] = ()
    # C/C++: (line, name) of each macro definition written in a comment, `//#define USE_TEXTURES` (a compile option
    # left off by default: porter.portaware.options)
    options: tuple[tuple[int, str], ...] = ()
    # A CMake file's (option, CUDA-named switch) pairs: cmake_dependent_option makes the option require the switch
    # (porter.portaware.scope.cuda_dependent_options)
    dependent: tuple[tuple[str, str], ...] = ()
    # A CMake file's (line, macro) preprocessor definitions (porter.portaware.scope.cmake_compile_definitions)
    definitions: tuple[tuple[int, str], ...] = ()
    # A CMake file's (switch, side) tests of switches named for NVIDIA-only libraries inside or joined with one
    # build's test (porter.portaware.scope.nvidia_only_switches)
    nvidia_only: tuple[tuple[str, str], ...] = ()
    # A CMake file's options (name, line, default OFF) and the names it mentions outside option()/if() lines and the
    # blocks of their own if(NAME) (porter.portaware.options.cmake_option_facts): which options are off by default
    cmake_options: tuple[tuple[str, int, bool], ...] = ()
    cmake_free_names: tuple[str, ...] = ()
    # A CMake file's (name, first line, last line) of each `if(NAME [AND ...])` arm's body
    # (porter.portaware.options.cmake_option_blocks): the lines an option left OFF keeps out of the build
    cmake_blocks: tuple[tuple[str, int, int], ...] = ()
    # A CMake file's (line, package) of each find_package() (porter.portaware.options.cmake_packages): a package
    # looked for only under an option left OFF is not found by the default build
    cmake_packages: tuple[tuple[int, str], ...] = ()
    # A CMake file's (first line, last line, guard line) of each arm of a CUDA switch that requires the CUDA toolkit
    # (porter.portaware.scope.toolkit_arms), read from the commands file_facts parses anyway
    toolkit_arms: tuple[tuple[int, int, int], ...] = ()
    # A Python file's (line, CUDA text) of each `str.replace("CUDA text", "HIP text")` its ROCm-side code runs on
    # kernel source (porter.portaware.rewrites)
    rewrites: tuple[tuple[int, str], ...] = ()
    # A torch-extension setup.py's source paths as its string literals spell them, a path.join of literals joined
    # with "/" and any computed part as "*" (porter.portaware.scope.setup_source_patterns): what setuptools compiles;
    # of a module that builds at run time, its torch JIT loads' sources (porter.portaware.status.jit_load_sources)
    sources: tuple[str, ...] = ()
    # A build file's (CMake, make, Meson, shell, setup.py) runs of lines that configure nothing (first, last: blank,
    # comment, message, flow control; porter.portaware.rocmbuild.inert_runs) and its lines that enable the HIP
    # language or run hipcc outside comments (rocmbuild.rocm_lines): what the repository's RocmBuild reads of it
    inert: tuple[tuple[int, int], ...] = ()
    rocm_lines: tuple[int, ...] = ()
    # A CMake file's (first line, last line, key) of each build unit narrower than its project - a function that
    # creates or configures targets, a target command outside one - and of each name its commands give (a function
    # body, a call, a target) (porter.portaware.scope.cmake_units): which targets the ROCm build reaches
    cmake_units: tuple[tuple[int, int, str], ...] = ()
    cmake_names: tuple[tuple[int, int, str], ...] = ()
    # A CMake file's writes of its own variables (name, first line, last line) and its reads of each (name, reads in
    # a CUDA-language span, other reads) (porter.portaware.scope.cmake_variable_facts): a variable read only in
    # CUDA-language spans carries options for CUDA-language compiles only
    cmake_writes: tuple[tuple[str, int, int], ...] = ()
    cmake_reads: tuple[tuple[str, int, int], ...] = ()
    # A shell script's lines that run ROCm's tools or compiler or select AMD GPUs (rocmbuild.rocm_tool_lines): the
    # AMD side of the project's runs, which stands in for an NVIDIA launch script below it (status.by_rocm_build)
    rocm_tools: tuple[int, ...] = ()
    # Whether a shell script launches the project in a container or as a cluster job (rocmbuild.launches)
    launcher: bool = False
    # The scan adds the text of the lines its findings are on (port status's compat-layer lookup needs no read);
    # None: not taken (a file port status read itself, or one without findings).
    finding_lines: tuple[tuple[int, str], ...] | None = None


@dataclass(frozen=True)
class FileResult:
    """Everything one file contributes to a scan; the unit that is cached by content hash."""

    path: str
    language: str
    lines: int
    findings: tuple[Finding, ...] = ()
    suppressed: tuple[Finding, ...] = ()
    kernels: tuple[Kernel, ...] = ()
    launches: tuple[Launch, ...] = ()
    skipped: Skipped | None = None
    parse_error_lines: int = 0
    # For kernels in other files (porter.kernels.callgraph): this file's __device__ functions, and its `#include`s
    # as written (header, quoted?), resolved against the repository after the scan.
    helpers: tuple[DeviceHelper, ...] = ()
    includes: tuple[tuple[str, bool], ...] = ()
    # Names this file's typedefs give CUDA's complex types (porter.kernels.complex_types.aliases_of), for kernels in
    # other files that multiply values of them.
    complex_aliases: tuple[str, ...] = ()
    # Type names this file gives a non-template `operator*` / `operator/` of two values, outside nvcc-only arms
    # (porter.kernels.complex_types.operators_of): a complex product of one of them calls the project's operator.
    complex_operators: tuple[str, ...] = ()
    # This file's `typedef ec<fd_p, 3> curve;` / `using curve = ec<...>;` as (alias, class), for qualified calls
    # in other files (`curve::add`: porter.kernels.callgraph.type_aliases_of).
    type_aliases: tuple[tuple[str, str], ...] = ()
    # For Triton kernels in other modules that import them (porter.kernels.triton_imports): this Python file's
    # `@triton.jit` functions.
    triton_helpers: tuple[TritonHelper, ...] = ()
    # For kernels launched through a launcher function (porter.kernels.launchers): this file's host functions that
    # launch a parameter, and its calls that pass a name no variable in scope declares.
    launchers: tuple[Launcher, ...] = ()
    passed: tuple[PassedName, ...] = ()
    # The kernels this file's #define bodies launch, as patterns (porter.kernels.launchers.macro_launches: a pasted
    # `__expand_VC_##lb<<<...>>>` is `__expand_VC_*`): launches the parsed code does not hold, for the
    # never-instantiated reading of template kernels (porter.kernels.verdicts.uninstantiated).
    macro_launched: tuple[str, ...] = ()
    # What the port-status stage reads from this file (porter.portaware.status.file_facts), taken from the scan's
    # own read and parse so that stage need not read and parse the file again; None: not taken (it reads it).
    port_facts: PortFacts | None = field(default=None, compare=False)
    # For the include-following pass of vector compound operators (porter.match.refine_vectors): None when the file
    # holds no vector type name DEV053 reads (or that rule is off).
    vectors: VectorFacts | None = None
    # For the unused-PTX-helper pass (porter.match.refine_helpers): None when the file holds no DEV001 finding, or
    # the scan's parse is not the one that pass makes (the repository's macros change the parser's input).
    asm_helpers: AsmHelpers | None = None
    # For the unreferenced-function pass (porter.match.refine_unreferenced): None for other languages
    references: ReferenceFacts | None = None
    # For the cross-module Python guard reading (porter.portaware.pymodules): None for other languages
    py_module: ModuleFacts | None = None


@dataclass(frozen=True)
class ScanStats:
    """How a scan went, and what it hands its later stages; never serialised, so results stay byte-identical
    across runs (a warm and a cold scan differ only here)."""

    cache_hits: int = 0
    cache_misses: int = 0
    is_git: bool = False
    prefix: str = ""  # the scanned directory's path inside its git work tree ("" at the top or outside git)
    notices: tuple[str, ...] = ()  # what the user is told beside the output (configuration, budgets, the cache)
    # Handed to the later stages (port status, deep mode) so they need not list or read the source again: the scan's
    # own listing as (source, include, exclude, porter.source.discover.Discovery), the macros that stand for one
    # build (porter.pipeline.RepositoryFacts.build_names) and the files' bytes as read (porter.pipeline.Held).
    # porter.source imports porter.model, so the source types cannot be named here: Any.
    discovery: tuple[Any, tuple[str, ...], tuple[str, ...], Any] | None = None
    build_names: tuple[frozenset[str], frozenset[str]] | None = None
    held: Any = None
    # The files the tree reads as C/C++/CUDA only because an `#include` or a build line says so (a `kern.txt` a
    # `.cu` includes, a `.py` CMake marks LANGUAGE CUDA): porter.pipeline.scan, for a diff's `only` (run_diff).
    read_as_code: frozenset[str] = frozenset()


@dataclass(frozen=True)
class AnalysedTarget:
    """A target the kernels were judged for, as a report names it (porter.targets.Target's reported fields)."""

    id: str
    name: str
    gfx: str
    wavefront_size: int
    lds_kib: float
    pre_release: bool
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "gfx": self.gfx, "wavefront_size": self.wavefront_size,
                "lds_kib": self.lds_kib, "pre_release": self.pre_release, "source": self.source}


@dataclass(frozen=True)
class KernelAnalysisSummary:
    """What the kernel stage (porter.kernels.verdicts.analyse) says of the whole scan: the targets, how many kernels
    got each verdict on each, and what deep mode did (its own JSON document, None without --deep).

    `verdicts` counts the open kernels only (port status open: the work the assessment's kernel table lists), so the
    JSON's counts agree with the tables of the other formats; kernels already handled for ROCm (an `#if` arm, a HIP
    twin, the ROCm build) and kernels kept NVIDIA-only are counted apart, in `handled` and `cuda_only`
    (porter.portaware.status.attach_status sorts them; before it runs every kernel is open)."""

    targets: tuple[AnalysedTarget, ...]
    verdicts: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]  # per target id: (verdict, kernels), VERDICTS order
    deep: Mapping[str, Any] | None = None
    handled: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()  # as `verdicts`, for handled kernels
    cuda_only: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()  # as `verdicts`, for NVIDIA-only kernels

    def counts(self, target: str) -> dict[str, int]:
        """Open kernels per verdict on one target ({} for a target not analysed)."""
        return next((dict(c) for t, c in self.verdicts if t == target), {})

    def to_dict(self) -> dict[str, Any]:
        # "verdicts_count" names what "verdicts" counts: read alone, it was taken for all kernels (a handled one too)
        return {"targets": [t.to_dict() for t in self.targets], "verdicts_count": "open kernels",
                "verdicts": {t: dict(c) for t, c in self.verdicts},
                "handled": {t: dict(c) for t, c in self.handled},
                "cuda_only": {t: dict(c) for t, c in self.cuda_only}, "deep": self.deep}


@dataclass(frozen=True)
class StatusCounts:
    """How many spots have each port status (porter.model.Status)."""

    open: int = 0
    handled: int = 0
    cuda_only: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"open": self.open, "handled": self.handled, "cuda_only": self.cuda_only}


@dataclass(frozen=True)
class PortStatusSummary:
    """What port-awareness (porter.portaware.status) says of the whole scan: findings and kernels by status, and how
    many handled or cuda-only spots each guard, compat layer, twin or configuration entry decides."""

    findings: StatusCounts = StatusCounts()
    handled_by: tuple[tuple[str, int], ...] = ()  # ("path:line" or "config-file:line", spots), sorted
    kernels: StatusCounts = StatusCounts()
    # the repository's ROCm build (porter.portaware.rocmbuild.RocmBuild), when it has one or only hollow arms of one
    rocm_build: Serialisable | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {**self.findings.to_dict(), "handled_by": dict(self.handled_by), "kernels": self.kernels.to_dict()}
        if self.rocm_build is not None:
            out["rocm_build"] = self.rocm_build.to_dict()
        return out


class Serialisable(Protocol):
    """What a later stage attaches to a scan: anything with its own JSON (`to_dict`)."""

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ScanResult:
    """A whole scan: sorted findings, kernels with their launches, file counts and skips."""

    root: str
    findings: tuple[Finding, ...]
    suppressed: tuple[Finding, ...]
    kernels: tuple[Kernel, ...]
    launches: tuple[Launch, ...]
    files: tuple[FileResult, ...]
    skipped: tuple[Skipped, ...]
    targets: tuple[str, ...] = ()
    # What later stages attach, each serialised under its own key. Paths are relative to the scanned root; where that
    # is a subdirectory of a git work tree, `repository_prefix` maps them to repository-relative paths (what code
    # scanning and PR annotations need).
    repository_prefix: str = ""
    kernel_analysis: KernelAnalysisSummary | None = None
    port_status: PortStatusSummary | None = None
    # porter.estimate.assess.Assessment (porter.estimate reads porter.model, so its type is not named here), serialised
    # only when the scan is
    assessment: Serialisable | None = None
    # porter.diff.apply: what a change added and removed, as its JSON keys (diff, fixed, kernel_changes, renames,
    # reopened, suppressed_by_change)
    change: Mapping[str, Any] | None = None
    stats: ScanStats = field(default_factory=ScanStats, compare=False)
    # The validated rule set the findings came from (porter.rules.RuleSet), so later stages (kernel verdicts,
    # assessment, SARIF) read the same rules, project rules included, without loading them again.
    rules: Any = field(default=None, compare=False, repr=False)

    @property
    def unseen(self) -> tuple[Skipped, ...]:
        """The skipped files porter meant to read and could not (Skipped.unseen): code a gate must not pass and a
        pull-request comment must not call clean."""
        return tuple(s for s in self.skipped if s.unseen)

    def launches_of(self, kernel: Kernel) -> list[Launch]:
        """Launch sites of this kernel: those in its own file, and those in files that define no kernel of that
        name (a launch next to its own `k` is that `k`'s, not another file's); same-file launches first."""
        index = self.__dict__.get("_launch_index")
        if index is None:
            # Built once: a linear scan per kernel made large repositories quadratic.
            by_name: dict[str, list[Launch]] = {}
            for l in self.launches:
                by_name.setdefault(l.kernel, []).append(l)
            defined_in: dict[str, set[str]] = {}
            namesakes: dict[str, int] = {}
            for k in self.kernels:
                defined_in.setdefault(k.name, set()).add(k.path)
                namesakes[k.name] = namesakes.get(k.name, 0) + 1
            index = (by_name, defined_in, namesakes)
            object.__setattr__(self, "_launch_index", index)
        by_name, defined_in, namesakes = index
        if namesakes.get(kernel.name, 0) > MAX_NAMESAKES:
            return []
        homes = defined_in.get(kernel.name, set())
        hits = [l for l in by_name.get(kernel.name, []) if l.path == kernel.path or l.path not in homes]
        return sorted(hits, key=lambda l: (l.path != kernel.path, l.path, l.line, l.column))

    def summary(self) -> dict[str, Any]:
        from porter.model.totals import totals

        # Counted in C (Counter over attrgetter; Severity hashes as its int): a loop over the findings with a str()
        # per finding cost as much as the rest of the summary.
        severities = Counter(map(attrgetter("severity"), self.findings))
        by_sev = {str(s): severities[s] for s in Severity}
        by_cat = Counter(map(attrgetter("category"), self.findings))
        by_rule = Counter(map(attrgetter("rule"), self.findings))
        return {
            "findings": len(self.findings),
            "suppressed": len(self.suppressed),
            "kernels": len(self.kernels),
            "launches": len(self.launches),
            "by_severity": by_sev,
            "by_category": dict(sorted(by_cat.items())),
            "by_rule": dict(sorted(by_rule.items())),
            # the headline every format prints (porter.model.totals): findings by status and severity, file counts
            "totals": totals(self).to_dict(),
        }

    def to_dict(self) -> dict[str, Any]:
        scanned = [f for f in self.files if f.skipped is None]
        return {
            "schema": SCHEMA_VERSION,
            "tool": {"name": "porter", "version": _version()},
            "root": self.root,
            "targets": list(self.targets),
            "summary": self.summary(),
            "files": {
                "scanned": len(scanned),
                "lines": sum(f.lines for f in scanned),
                "by_language": _count_by(scanned, lambda f: f.language),
            },
            "findings": [f.to_dict() for f in self.findings],
            "suppressed": [f.to_dict() for f in self.suppressed],
            "kernels": [k.to_dict(self.launches_of(k)) for k in self.kernels],
            # Every launch site, including launches of kernels defined outside the scanned tree.
            "launches": [l.to_dict() for l in self.launches],
            "skipped": [s.to_dict() for s in self.skipped],
            **dict(sorted(self._attached().items())),
        }

    def _attached(self) -> dict[str, Any]:
        """The later stages' results by their JSON keys (serialised in key order, after the scan's own)."""
        out: dict[str, Any] = dict(self.change or {})
        if self.repository_prefix:
            out["repository_prefix"] = self.repository_prefix
        if self.kernel_analysis is not None:
            out["kernel_analysis"] = self.kernel_analysis.to_dict()
        if self.port_status is not None:
            out["port_status"] = self.port_status.to_dict()
        if self.assessment is not None:
            out["assessment"] = self.assessment.to_dict()
        return out


def _count_by(items: Iterable[FileResult], key: Callable[[FileResult], str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[key(i)] = out.get(key(i), 0) + 1
    return dict(sorted(out.items()))


def _version() -> str:
    from porter import __version__

    return __version__
