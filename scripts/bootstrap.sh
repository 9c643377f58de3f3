#!/usr/bin/env bash
# Set up porter on this machine: .venv with porter and its test extras, plus the compilers the tests use.
#
# Safe to re-run: pip runs only when pyproject.toml (or the Python) changed since the last good install,
# and apt runs only when a package is missing. Python deps failing is fatal; system packages are best
# effort (tests that need a missing tool skip and name it). Facts behind the package list: docs/toolchains.md.
#   PORTER_NO_APT=1   never touch system packages (just report what is missing)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
start=$(date +%s)
say() { printf 'bootstrap: %s\n' "$*"; }

# Several shells in one checkout (test.sh, demo.sh) may bootstrap at once: let one pip/apt run at a time.
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/porter-bootstrap-$(printf '%s' "$root" | sha256sum | cut -c1-12).lock"
    flock 9
fi

# --- system packages ---------------------------------------------------------------------------
# hipcc pulls clang-15, lld-15, llvm-15, libamdhip64-dev (HIP headers) and rocm-device-libs (gfx90a bitcode).
# clang-19 does device-only gfx942 builds; gfx950 needs clang >= 20, hence clang-22 (bookworm-security).
# chromium renders the HTML report headless.
# postgresql: tests/test_fleet_executors.py starts a real server (initdb, pg_ctl) in a temporary directory.
system_pkgs=(hipcc libamdhip64-dev rocm-device-libs clang-19 clang-22 chromium postgresql)

missing_pkgs() {
    local p
    for p in "${system_pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || printf '%s\n' "$p"
    done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    say "no dpkg: cannot check ${system_pkgs[*]}; tests needing them will skip"
else
    mapfile -t missing < <(missing_pkgs)
    if ((${#missing[@]})); then
        if [[ ${PORTER_NO_APT:-} == 1 ]]; then
            say "missing (PORTER_NO_APT=1, not installing): ${missing[*]}"
        elif [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
            say "missing (need root + apt-get to install): ${missing[*]}"
        else
            say "installing ${missing[*]} ..."
            apt_log=${TMPDIR:-/tmp}/porter-bootstrap-apt.log
            apt_opts=(-q -y -o DPkg::Lock::Timeout=300 --no-install-recommends)
            # One package the mirror lacks must not block the others: retry one by one on failure.
            if { apt-get -q -o DPkg::Lock::Timeout=300 update &&
                 DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}"; } >"$apt_log" 2>&1; then
                :
            else
                for p in "${missing[@]}"; do
                    DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "$p" >>"$apt_log" 2>&1 || true
                done
            fi
            mapfile -t still < <(missing_pkgs)
            if ((${#still[@]})); then
                say "could not install: ${still[*]} (log: $apt_log); tests needing them will skip"
            fi
        fi
    fi
fi
command -v nvcc >/dev/null 2>&1 || say "nvcc not on PATH (it comes with the machine image, not apt); nvcc tests will skip"

# --- Python ------------------------------------------------------------------------------------
# A venv left without pip (an interrupted or failed creation) is rebuilt rather than failing on every re-run.
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    say "creating .venv"
    rm -rf .venv
    python3 -m venv .venv
fi
stamp_file=.venv/.porter-bootstrap
stamp="$( { sha256sum pyproject.toml; printf '%s\n' "$root"; .venv/bin/python -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
if [[ -f $stamp_file && $(<"$stamp_file") == "$stamp" ]] &&
    .venv/bin/python -c 'import importlib.metadata as m; m.distribution("porter-rocm")' 2>/dev/null; then
    :
else
    say "pip install -e '.[test,deep]' ..."
    rm -f "$stamp_file"
    pip_log=.venv/porter-bootstrap-pip.log
    if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,deep]' >"$pip_log" 2>&1; then
        # This machine's pip.conf names local wheel folders that may not exist; their warnings are noise.
        grep -v 'is ignored: it is neither a file nor a directory' "$pip_log" | tail -n 25 >&2 || true
        say "FAILED: pip install -e '.[test,deep]' into $root/.venv (full log: $pip_log)"
        exit 1
    fi
    printf '%s\n' "$stamp" >"$stamp_file"
fi

# --- SARIF Multitool ----------------------------------------------------------------------------
# tests/test_sarif_multitool.py validates porter's SARIF with Microsoft's validator (what code scanning's docs point
# to). npm's @microsoft/sarif-multitool pulls its self-contained Linux build (~95 MB) into .venv; best effort: without
# npm or the registry the test skips and says so. npm does not run the package's postinstall (chmod), so we do.
multitool=.venv/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [[ ! -x $multitool ]]; then
    if command -v npm >/dev/null 2>&1; then
        say "npm install @microsoft/sarif-multitool@5.7.0 ..."
        if npm install --prefix .venv/sarif-multitool --no-audit --no-fund --silent @microsoft/sarif-multitool@5.7.0 \
                >.venv/porter-bootstrap-npm.log 2>&1 && chmod u+x "$multitool" 2>/dev/null; then
            :
        else
            say "sarif-multitool not installed (log: .venv/porter-bootstrap-npm.log); its test will skip"
        fi
    else
        say "npm not found: the SARIF Multitool test will skip"
    fi
fi

say "ready in $(($(date +%s) - start))s"
