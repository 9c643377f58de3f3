"""Whether the repository has a working ROCm build, read once as a whole: its evidence and the build files it covers.

A ROCm build is build evidence that compiles the project's device sources with the ROCm toolchain: a CMake or make
arm only the ROCm build takes that does something (`if(USE_HIP) enable_language(HIP) ... endif()`, `ifeq
($(BACKEND),hip) CXX = hipcc`), a make configuration fragment that selects hipcc (ludwig's `config/unix-hipcc.mk`),
a ROCm twin of a build file (`Makefile.hip`, `setup_hip.py`), a `torch.version.hip` branch of a Python build script
that configures the extension (conch's `extra_compile_args["hipcc"]`), the HIP language enabled outside any CUDA
arm, or a make recipe, shell script or Bazel BUILD file (a genrule whose tool is `@local_rocm//:hipcc`) that runs
hipcc. A ROCm arm or branch that compiles nothing - only comments,
`message()`, `$(error ...)`, `raise`, `print` (heldout39's QGEMM: `if(USE_HIP)` with four blank lines) - is
hollow: listed, never evidence. porter.portaware.status builds the inputs from what it already read (PortMap's
build-file regions and Python spans, the make configurations, the build twins, and each build file's cached facts:
its inert_runs and rocm_lines, so no file is read again) and asks `rocm_build` once.

A build whose every ROCm arm is hollow has no ROCm build (RocmBuild.hollow_for: a CMake project, or a make file,
Meson file or setup.py of its own): the NVIDIA build's configuration its arms guard is the port's work, not handled
by them (status.without_rocm_build: rules tagged `nvidia-build`).
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Sequence

from porter.lazyre import lazy_regex
from porter.portaware.runners import amd_runner_line, is_ci_file
from porter.portaware.scope import make_conditional

# Evidence kinds, in the order they are looked for.
CMAKE_ARM = "cmake-arm"
MAKE_ARM = "make-arm"
MESON_ARM = "meson-arm"
MAKE_CONFIGURATION = "make-configuration"
BUILD_TWIN = "build-twin"
PYTHON_BRANCH = "python-branch"
HIP_LANGUAGE = "hip-language"
HIPCC_COMMAND = "hipcc-command"
DOCKER_IMAGE = "docker-image"
CI_JOB = "ci-job"
# The build systems an NVIDIA-build line can belong to, as RocmBuild.stands_in reads them (build_system).
CMAKE, MESON, BAZEL, DOCKER, CI = "cmake", "meson", "bazel", "dockerfile", "ci"


@dataclass(frozen=True)
class BuildEvidence:
    """One place the ROCm build is configured: "path:line" and its kind (CMAKE_ARM ... HIPCC_COMMAND)."""

    where: str
    kind: str

    def to_dict(self) -> dict[str, str]:
        return {"where": self.where, "kind": self.kind}


@dataclass(frozen=True)
class RocmBuild:
    """The repository's ROCm build: its evidence (empty: none), the build files it covers (those holding evidence,
    and the CUDA build files a ROCm twin or configuration stands in for), and the ROCm arms that compile nothing."""

    evidence: tuple[BuildEvidence, ...] = ()
    covers: tuple[str, ...] = ()
    hollow: tuple[str, ...] = ()  # "path:line" of each hollow ROCm arm or branch

    @property
    def present(self) -> bool:
        """Whether the repository has a non-hollow ROCm build."""
        return bool(self.evidence)

    @property
    def hollow_only(self) -> bool:
        """Whether the repository's only ROCm build arms are hollow: it has no ROCm build, though it names one."""
        return bool(self.hollow) and not self.evidence

    def hollow_for(self, path: str) -> bool:
        """Whether the build `path` belongs to names a ROCm build only by hollow arms: for a CMake file, the CMake
        project (CMake arms configure one project across its files) has hollow ROCm arms and no CMake evidence; for
        a make file, a Meson file or a setup.py, the file itself (each is run on its own)."""
        if _is_cmake(path):
            return (any(_is_cmake(h.rsplit(":", 1)[0]) for h in self.hollow)
                    and not any(_is_cmake(e.where.rsplit(":", 1)[0]) for e in self.evidence))
        return (any(h.rsplit(":", 1)[0] == path for h in self.hollow)
                and not any(e.where.rsplit(":", 1)[0] == path for e in self.evidence))

    def stands_in(self, path: str, projects: frozenset[str] = frozenset()) -> str | None:
        """The evidence ("path:line") of the ROCm build that stands in for the NVIDIA build the build file `path`
        belongs to, read per build system (build_system): for a CMake file, evidence in a CMake file of the same
        CMake project (cmake_project: `projects` are the directories whose CMakeLists.txt declares a project());
        for a Bazel BUILD file, a hipcc rule of its own package (a package's
        targets are built on their own: one with no hipcc rule has no ROCm counterpart; a .bzl macro file defines
        rules, so none); for a Dockerfile, a ROCm
        Dockerfile that builds the project in its directory or one above it; for a CI file, a ROCm CI job that
        builds it. None for every other file - a make file, shell script, Meson file or setup.py is read on its own,
        so its own arms, twin or configuration decide it - and for a build system with no evidence of its own: the ROCm build
        porter sees leaves it out (a CUDA-only CMake project of its own, a Bazel build beside a CMake ROCm build)."""
        system = build_system(path)
        if system not in (CMAKE, BAZEL, DOCKER, CI):
            return None
        here = cmake_project(path, projects) if system == CMAKE else posixpath.dirname(path)
        for e in self.evidence:
            where = e.where.rsplit(":", 1)[0]
            if build_system(where) != system:
                continue
            if system == CMAKE and cmake_project(where, projects) != here:
                continue
            if system == DOCKER and not _at_or_above(posixpath.dirname(where), here):
                continue
            if system == BAZEL and (posixpath.dirname(where) != here or path.endswith(".bzl")):
                continue
            return e.where
        return None

    def to_dict(self) -> dict[str, object]:
        return {"present": self.present, "evidence": [e.to_dict() for e in self.evidence],
                "covers": list(self.covers), "hollow": list(self.hollow)}


# A CMake command's name at the start of a line (`enable_language(`, `  set (`).
_CMAKE_COMMAND = lazy_regex(r"^\s*([A-Za-z_]\w*)\s*\(")
# CMake commands that configure nothing a compiler sees: flow control and messages.
_CMAKE_INERT = frozenset({"message", "if", "elseif", "else", "endif", "return"})
# A make line that configures nothing besides a conditional's own line (scope.make_conditional): a message.
_MAKE_MESSAGE = lazy_regex(r"^\s*(?:\$\((?:info|warning|error)\b.*)?$")
# A Python line that configures nothing: `pass`, `...`, a `raise`, a print or warning, an exit, and the string or
# bracket lines such a call continues on.
_PY_INERT = lazy_regex(r"""^\s*(?:pass|\.\.\.|raise\b.*|(?:print|warnings\.warn|logging\.\w+|logger\.\w+|sys\.exit|exit)\s*\(.*"""
                       r"""|[rbfu]*(?:"[^"]*"|'[^']*')[\s,)]*|[)\]}]+[\s,]*)?$""")
# The HIP language or a HIP target in CMake (outside a CUDA arm: the ROCm build's own), ROCm's HIP package
# (`find_package(hip)`, whose hip::device target compiles for AMD), the HIP architectures set, the ROCm compiler
# set as a language's compiler (not a find_program() probe for it), or an AMD offload target.
_HIP_LANGUAGE = lazy_regex(r"(?i)\benable_language\s*\(\s*HIP\b|\bproject\s*\([^)]*\bLANGUAGES\b[^)]*\bHIP\b"
                           r"|\bLANGUAGE\s+HIP\b|\bhip_add_(?:library|executable)\s*\(|\bfind_package\s*\(\s*hip\b"
                           r"|\bset\s*\(\s*CMAKE_HIP_ARCHITECTURES\b|\bCMAKE_(?:CXX|C|HIP)_COMPILER\b[^)]*(?<![\w.-])(?:hipcc|amdclang(?:\+\+)?)(?![\w.-])"
                           r"|--(?:offload-arch|amdgpu-target)[= ]gfx")
# hipcc run by a make recipe or assigned as a make/shell compiler (`CXX = hipcc`, `hipcc -c k.hip`), amdclang or
# amdclang++, or an AMD GPU offload target handed to a compiler (`--offload-arch=gfx942`, `--amdgpu-target=gfx90a`).
_HIPCC = lazy_regex(r"(?<![\w./-])(?:hipcc|amdclang(?:\+\+)?)(?![\w.-])|--(?:offload-arch|amdgpu-target)[= ]gfx")
# A Dockerfile stage on a ROCm base image (`FROM rocm/pytorch:latest`, `FROM ghcr.io/x/base:rocm6.2 AS build`).
_ROCM_FROM = lazy_regex(r"(?i)^\s*FROM\s+(?:--platform=\S+\s+)?\S*rocm\S*")
_FROM = lazy_regex(r"(?i)^\s*FROM\s")
# A build of the project in a Dockerfile stage or a CI file: a build tool or the ROCm compiler run, or the
# package installed from its own tree (`pip install .`, `pip install -e .`, `python setup.py ...`).
_BUILD_STEP = lazy_regex(r"(?<![\w./-])(?:cmake|make|ninja|meson|bazel|bazelisk|hipcc|amdclang\+\+|setup\.py)(?![\w.-])"
                         r"|\bpip3?\s+install\s+(?:-\S+\s+)*(?:-e\s+)?\.(?:\[\S*\])?(?:\s|$)")
# A CI job's container image that names ROCm (`image: rocm/dev-ubuntu-22.04`, `container: rocm/pytorch:latest`).
_CI_ROCM_IMAGE = lazy_regex(r"(?i)^\s*(?:-\s+)?(?:image|container)\s*:\s*[\"']?\S*rocm")

_CMAKE_MESSAGE = lazy_regex(r"(?i)^\s*message\s*\(")
# HIP on NVIDIA's platform: hipcc driving nvcc, which is no ROCm build.
_HIP_ON_NVIDIA = lazy_regex(r"__HIP_PLATFORM_(?:NVCC|NVIDIA)__|HIP_PLATFORM\s*[:?]?=\s*nv")


def _is_cmake(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name.startswith("cmakelists") or name.endswith(".cmake")


def build_system(path: str) -> str:
    """The build system a build file belongs to, from its name: CMAKE, MESON, BAZEL, DOCKER, CI, or "" (a make
    file, shell script, Python build script or anything else: each is run on its own)."""
    name = path.rsplit("/", 1)[-1]
    if _is_cmake(path):
        return CMAKE
    if name in ("meson.build", "meson_options.txt", "meson.options"):
        return MESON
    if name.startswith("BUILD") or name.endswith((".bazel", ".bzl")) or name == "WORKSPACE":
        return BAZEL
    if name.startswith(("Dockerfile", "Containerfile")) or name.lower().endswith(".dockerfile"):
        return DOCKER
    if is_ci_file(path):
        return CI
    return ""


def cmake_project(path: str, projects: frozenset[str]) -> str:
    """The CMake project a CMake file belongs to: the nearest directory at or above it in `projects` (those whose
    CMakeLists.txt declares a project()), else the top ("")."""
    d = posixpath.dirname(path)
    while d and d not in projects:
        d = posixpath.dirname(d)
    return d


def _at_or_above(d: str, here: str) -> bool:
    """Whether directory `d` is `here` or a directory above it ("" is the top)."""
    return d == here or not d or here.startswith(d + "/")


# What a launch script runs of ROCm: its profilers and SMI tools, rocminfo, the AMD GPU selection variables, the
# kernel driver device, the ROCm install tree - an AMD box's run of the project.
_ROCM_TOOL = lazy_regex(r"(?<![\w./-])(?:rocprof[\w-]*|rocm-smi|amd-smi|rocminfo|omniperf|rocm-bandwidth-test)(?![\w.-])"
                        r"|\b(?:HIP|ROCR)_VISIBLE_DEVICES\b|/dev/kfd\b|/opt/rocm\b")
# A script that launches the project in a container or as a cluster job.
_LAUNCH = lazy_regex(r"(?<![\w./-])(?:docker|podman|nerdctl)\s+(?:container\s+)?run\b"
                     r"|(?<![\w./-])(?:srun|sbatch|apptainer|singularity|enroot)(?![\w.-])")


def rocm_tool_lines(text: str) -> tuple[int, ...]:
    """A shell script's lines that run ROCm's tools or select AMD GPUs (rocprof, rocm-smi, amd-smi, rocminfo,
    HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, /dev/kfd, /opt/rocm) or its compiler (rocm_lines), outside
    comments: the script is the AMD side of the project's runs."""
    if _HIP_ON_NVIDIA().search(text):
        return ()
    return tuple(n for n, raw in enumerate(text.split("\n"), 1)
                 if (row := _code(raw)) and (_ROCM_TOOL().search(row) or _HIPCC().search(row)))


def launches(text: str) -> bool:
    """Whether a shell script launches the project in a container or as a cluster job (`docker run`, `podman run`,
    `srun`, `sbatch`, `apptainer`, `singularity`, `enroot`), outside comments."""
    return any(_LAUNCH().search(_code(raw)) for raw in text.split("\n"))


def code_chars(line: str) -> Iterator[tuple[str, bool]]:
    """A CMake, make, shell or Starlark line's characters before its `#` comment, each with whether it is part of a
    quoted string (its quotes included): a `#` inside quotes is no comment."""
    quote = None
    for ch in line:
        if quote:
            quote = None if ch == quote else quote
            yield ch, True
        elif ch in "\"'":
            quote = ch
            yield ch, True
        elif ch == "#":
            return
        else:
            yield ch, False


def _code(line: str) -> str:
    """A CMake, make or shell line without its `#` comment (a `#` inside quotes is kept)."""
    # code_chars' answer without a generator step per character where no quote can matter (most lines): a line
    # with no `#` is all code, one with no quote ends at its first `#` (FasterTransformer's build files and scripts:
    # 542k characters stepped, ~4% of a cold scan under cProfile)
    if "#" not in line:
        return line
    if '"' not in line and "'" not in line:
        return line.partition("#")[0]
    return "".join(ch for ch, _quoted in code_chars(line))


def runs_hipcc(text: str) -> bool:
    """Whether a make file or shell script runs or assigns the ROCm compiler (hipcc, amdclang++) outside comments,
    and not HIP on NVIDIA's platform."""
    return bool(rocm_lines("shell", text))


def rocm_lines(language: str, text: str) -> tuple[int, ...]:
    """A build file's lines that build for ROCm by themselves: in CMake, the HIP language or a HIP target
    (`enable_language(HIP)`, `project(... LANGUAGES HIP)`, `LANGUAGE HIP`, `hip_add_library`), ROCm's HIP package
    (`find_package(hip)`), `set(CMAKE_HIP_ARCHITECTURES ...)`, hipcc or amdclang as the compiler or an AMD offload
    target, outside message();
    in a make file or shell script, hipcc, amdclang or amdclang++ run or assigned, or `--offload-arch=gfx...`; in a
    Dockerfile, the FROM line of a stage on a ROCm base image that builds the project (a build tool, hipcc, `pip
    install .`, setup.py run in it); in a CI file ("ci"), a ROCm container image or AMD GPU runner line of a file
    that builds the project the same way. Outside comments; none in a file that builds HIP on NVIDIA's platform
    (`__HIP_PLATFORM_NVIDIA__`, `HIP_PLATFORM=nvidia`)."""
    if language not in ("cmake", "make", "shell", DOCKER, CI) or _HIP_ON_NVIDIA().search(text):
        return ()
    rows = [_code(raw) for raw in text.split("\n")]
    if language == DOCKER:
        return _docker_rocm_lines(rows)
    if language == CI:
        return _ci_rocm_lines(rows)
    if language == "cmake":
        # a message() that names the HIP architectures or hipcc tells the reader, it builds nothing
        return tuple(n for n, row in enumerate(rows, 1)
                     if _HIP_LANGUAGE().search(row) and not _CMAKE_MESSAGE().match(row))
    return tuple(n for n, row in enumerate(rows, 1) if _HIPCC().search(row))


def _docker_rocm_lines(rows: Sequence[str]) -> tuple[int, ...]:
    """The FROM lines of a Dockerfile's stages on a ROCm base image in which the project is built."""
    out: list[int] = []
    stage: int | None = None  # the current stage's FROM line when it is a ROCm one
    for n, row in enumerate(rows, 1):
        if _FROM().match(row):
            stage = n if _ROCM_FROM().match(row) else None
        elif stage is not None and _BUILD_STEP().search(row):
            out.append(stage)
            stage = None  # one line per stage
    return tuple(out)


def _ci_rocm_lines(rows: Sequence[str]) -> tuple[int, ...]:
    """A CI file's ROCm image and AMD runner lines, when the file builds the project (one file read as one job:
    CI files are short, and a ROCm job in a file that builds is what a ROCm CI job looks like)."""
    if not any(_BUILD_STEP().search(row) for row in rows):
        return ()
    found = {n for n, row in enumerate(rows, 1) if _CI_ROCM_IMAGE().match(row)}
    runner = amd_runner_line("\n".join(rows))
    return tuple(sorted(found | ({runner} if runner is not None else set())))


def _inert(language: str, raw: str) -> bool:
    """Whether one line of a build file configures nothing (see arm_works)."""
    if language == "python":
        return raw.lstrip().startswith("#") or bool(_PY_INERT().match(raw))
    text = _code(raw).strip()
    if not text:
        return True
    if language in ("cmake", "meson"):
        m = _CMAKE_COMMAND().match(text)
        if m is None:
            # a continued command's argument line is inert; a Meson assignment is not
            return not (language == "meson" and "=" in text)
        return m.group(1).lower() in _CMAKE_INERT
    return bool(_MAKE_MESSAGE().match(text)) or make_conditional(text) is not None


def arm_works(language: str, lines: Sequence[str]) -> bool:
    """Whether an arm's body lines configure anything (not hollow): a CMake command other than a message or flow
    control, a make line other than a conditional or message, a Python statement other than pass, raise, print,
    warn or exit."""
    return any(not _inert(language, raw) for raw in lines)


def inert_runs(language: str, text: str) -> tuple[tuple[int, int], ...]:
    """The runs (first line, last line) of a build file's lines that configure nothing: what file_facts keeps of
    it, so RocmBuild decides an arm's hollowness without reading the file again."""
    runs: list[tuple[int, int]] = []
    for n, raw in enumerate(text.split("\n"), 1):
        if not _inert(language, raw):
            continue
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return tuple(runs)


def rocm_build(languages: Mapping[str, str], arms: Mapping[str, Iterable[tuple[int, int, int]]],
               cuda_arms: Mapping[str, Iterable[tuple[int, int]]], configurations: Iterable[str],
               twins: Mapping[str, str], inert: Mapping[str, Sequence[tuple[int, int]]],
               lines: Mapping[str, Sequence[int]]) -> RocmBuild:
    """The RocmBuild of a repository, from each build file's facts. `languages`: each build file's language
    ("cmake", "make", "meson", "shell", "python" for a Python build script); `arms`: per build file, its ROCm arms and
    branches (first line, last line, guard line); `cuda_arms`: per build file, the line ranges only the CUDA build
    reads (no HIP language or hipcc there is evidence); `configurations`: make fragments that select the ROCm
    toolchain; `twins`: CUDA build file -> its ROCm twin build file or the ROCm configuration that replaces it;
    `inert`: per build file, its inert_runs; `lines`: per build file, its rocm_lines."""
    evidence: list[BuildEvidence] = []
    hollow: list[str] = []
    covers: set[str] = set()
    for path in sorted(arms):
        language = languages.get(path)
        if language is None or path not in inert:
            continue
        idle = {n for a, b in inert[path] for n in range(a, b + 1)}
        kind = {"cmake": CMAKE_ARM, "make": MAKE_ARM, "meson": MESON_ARM}.get(language, PYTHON_BRANCH)
        # one arm per guard: a nested test splits an arm into several ranges, and the arm works if any of them does
        by_guard: dict[int, set[int]] = {}
        for first, last, guard in arms[path]:
            by_guard.setdefault(guard, set()).update(range(first, last + 1))
        for guard, numbers in sorted(by_guard.items()):
            if numbers - {guard} - idle:
                evidence.append(BuildEvidence(f"{path}:{guard}", kind))
                covers.add(path)
            else:
                hollow.append(f"{path}:{guard}")
    for path in sorted(configurations):
        evidence.append(BuildEvidence(f"{path}:1", MAKE_CONFIGURATION))
        covers.add(path)
    configured = set(configurations)
    for cuda, twin in sorted(twins.items()):
        if twin not in configured:  # a configuration is evidence once, above; it covers each fragment it replaces
            # at the twin's hipcc line when it has one (a script's command), else its first
            evidence.append(BuildEvidence(f"{twin}:{min(lines.get(twin, ()), default=1)}", BUILD_TWIN))
        covers.update((cuda, twin))
    kinds = {"cmake": HIP_LANGUAGE, DOCKER: DOCKER_IMAGE, CI: CI_JOB}
    for path, language in sorted(languages.items()):
        if language not in ("cmake", "make", "shell", "bazel", DOCKER, CI) or path in covers:
            continue
        skip = list(cuda_arms.get(path, ()))
        at = next((n for n in lines.get(path, ()) if not any(a <= n <= b for a, b in skip)), None)
        if at is not None:
            evidence.append(BuildEvidence(f"{path}:{at}", kinds.get(language, HIPCC_COMMAND)))
            covers.add(path)
    return RocmBuild(tuple(evidence), tuple(sorted(covers)), tuple(hollow))
