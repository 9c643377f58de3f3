"""Second judge's blind guard verdicts for heldout45 (session 30, branch s30-j45). The keys are every one of the 22 sides
of the first judge's guards.jsonl (2 C/C++, 20 Python), read through heldout39's sample_guards_second.py (verdict
fields dropped as each row is read; its output is byte-identical to the guard_keys_second.jsonl committed on s30-h45).
Each side is judged real or not real, as heldout30/39's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA library calls a ROCm arm replaces, the CUDA branch of a backend report whose
  ROCm branch reports the HIP side);
- not real: no CUDA code at the lines (an #error, a raise, a skip-reason string, a CPU/other-backend fallback), ROCm
  code read as a CUDA side, the non-ROCm arm of a ROCm-only check, or a CUDA-only feature the project gates off on ROCm
  with nothing for the ROCm path to replace.
The verdicts were written before the first judge's guard verdicts were opened, from the trees in /tmp/j45.

    python bench/judged/heldout39/sample_guards_second.py bench/judged/heldout45/guards.jsonl > /tmp/j45/guard_keys_second.jsonl
    python bench/judged/heldout45/make_guards_second.py bench/judged/heldout45/guard_keys_second.jsonl > bench/judged/heldout45/guards_second.jsonl
"""
import json
import sys

FFT = ("the non-HIP arm of `if is_hip:` in CuPyFFTPlans: ")
BENCH = ("`return f\"CUDA {torch.version.cuda}\"` under `if torch.version.cuda:` in the benchmark's _detect_backend, "
         "after `if torch.version.hip: return f\"ROCm {torch.version.hip}\"`: the CUDA branch of a backend report whose "
         "ROCm branch reports the HIP side (heldout39's installer.py:997 convention; a label-only side, so the "
         "weakest kind of real)")
NONROCM = "in the non-ROCm arm of `if not _is_rocm_runtime()`: no CUDA code, the hipSPARSE reference is ROCm-only"
V = {
    # ---- GPAW
    ("JakobKSvaneborg/gpaw", "c/gpu/gpu-complex.h", 2): (True,
        "`#include <cuComplex.h>` under `#ifdef GPAW_CUDA`; the GPAW_HIP arm includes hip/hip_complex.h"),
    ("JakobKSvaneborg/gpaw", "c/gpu/gpu-runtime.h", 7): (True,
        "`#include \"cuda.h\"` under `#ifdef GPAW_CUDA`: GPAW's CUDA name map (gpu* -> cuda*/cuBLAS); the GPAW_HIP arm "
        "includes hip.h with the hip*/hipBLAS map and the complex wrappers"),
    ("JakobKSvaneborg/gpaw", "gpaw/fftw.py", 257): (True,
        FFT + "`cupyx.scipy.fft.rfftn(self.tmp_R)` (cuFFT R2C through CuPy); the HIP arm replaces it with "
        "rfftn_patch (a full complex fftn sliced to the half spectrum)"),
    ("JakobKSvaneborg/gpaw", "gpaw/fftw.py", 269): (True,
        FFT + "`cupyx.scipy.fft.irfftn(..., norm='forward', overwrite_x=True)` (cuFFT C2R); the HIP arm replaces it "
        "with irfftn_patch(...) * size"),
    ("JakobKSvaneborg/gpaw", "gpaw/fftw.py", 324): (True,
        FFT + "ifft_sphere's `cupyx.scipy.fft.irfftn(array_Q, shape, norm='forward', overwrite_x=True)`; the HIP arm "
        "uses irfftn_patch"),
    ("JakobKSvaneborg/gpaw", "gpaw/fftw.py", 340): (True,
        FFT + "fft_sphere's CUDA path: the copy for a non-16-byte-aligned input (a CuPy/cuFFT rfftn workaround with a "
        "warning) and `cupyx.scipy.fft.rfftn(in_R)`; the HIP arm uses rfftn_patch"),
    ("JakobKSvaneborg/gpaw", "gpaw/gpu/diagonalization/__init__.py", 30): (True,
        "`if not is_hip:` (\"NVIDIA GPU. CuPy calls cuSolver\"): CPU below 128 else CuPyDiagonalizer, i.e. cuSOLVER "
        "eigh; the AMD path that follows replaces it with CPU below 400 and MAGMA (multi-GPU) above, since CuPy's "
        "eigh is not the ROCm choice; the CUDA library choice a ROCm arm replaces"),
    ("JakobKSvaneborg/gpaw", "gpaw/mpi.py", 862): (False,
        "`world = _world` in the else of `if is_hip: world = _Communicator(_world)`: the plain communicator CPU and "
        "CUDA builds share; the HIP arm wraps it in _Communicator, whose buffers go through a fresh direct device allocation (the LUMI MI250X MPI-corruption workaround). The non-ROCm arm of a ROCm-only "
        "workaround, no CUDA code"),
    # ---- FlagSparse
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/_common.py", 615): (False,
        "`return \"hipSPARSE CSR SpMV reference requires a ROCm runtime\"` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/_common.py", 650): (False,
        "`return \"hipSPARSE COO SpMV reference requires a ROCm runtime\"` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/gather_scatter.py", 265): (False,
        "`return f\"hipSPARSE {op_label} reference requires a ROCm runtime\"` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/gather_scatter.py", 854): (False,
        "`raise RuntimeError(\"direct hipSPARSE gather reference requires a ROCm runtime\")` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/gather_scatter.py", 878): (False,
        "`raise RuntimeError(\"direct hipSPARSE scatter reference requires a ROCm runtime\")` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/spgemm_csr.py", 1268): (False,
        "`return \"hipSPARSE CSR SpGEMM reference requires a ROCm runtime\"` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/spmm_coo.py", 172): (False,
        "`return \"hipSPARSE COO SpMM reference requires a ROCm runtime\"` " + NONROCM),
    ("flagos-ai/FlagSparse", "src/flagsparse/sparse_operations/spmm_csr.py", 1897): (False,
        "`return \"hipSPARSE CSR SpMM reference requires a ROCm runtime\"` " + NONROCM),
    # ---- torch-ivf
    ("kitfactory/torch-ivf", "scripts/benchmark.py", 273): (True, BENCH),
    ("kitfactory/torch-ivf", "scripts/benchmark_sweep_auto_threshold.py", 100): (True, BENCH),
    ("kitfactory/torch-ivf", "scripts/benchmark_sweep_candidate_budget.py", 128): (True, BENCH),
    ("kitfactory/torch-ivf", "scripts/benchmark_sweep_max_codes.py", 102): (True, BENCH),
    ("kitfactory/torch-ivf", "scripts/benchmark_sweep_nq.py", 100): (True, BENCH),
    ("kitfactory/torch-ivf", "src/torch_ivf/index/base.py", 110): (False,
        "`raise RuntimeError(\"Current PyTorch build does not support ROCm.\")` under `if not torch.version.hip` in "
        "IndexBase.rocm(): a raise in the non-ROCm arm of a ROCm-only check, no CUDA code"),
}

keys = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
seen = set()
for k in keys:
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]  # a key without a verdict is an error
    seen.add(key)
    print(json.dumps({**k, "real": real, "reason": reason}, sort_keys=True))
assert seen == set(V) and len(keys) == 22, set(V) - seen
