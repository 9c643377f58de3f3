"""Second judge's blind guard verdicts for heldout19: the 30 keys drawn by sample_guards_second.py (seed 3193 over the
158 sorted keys of the first judge's guards.jsonl, keys only), each judged real (the ROCm build needs equivalent code
at that CUDA side to work: its arm, twin or wrapper supplies it) or not (host-compiler / CPU arms of the HIP twins,
arms identical in both builds, CUDA-only paths the ROCm build replaces by a CPU fallback, lines with no CUDA code).
Written before the first judge's verdicts were opened.

    python bench/judged/heldout19/sample_guards_second.py <(git show s20-h19:bench/judged/heldout19/guards.jsonl) > bench/judged/heldout19/guard_keys_second.jsonl
    python bench/judged/heldout19/make_guards_second.py bench/judged/heldout19/guard_keys_second.jsonl > bench/judged/heldout19/guards_second.jsonl
"""
import json
import sys

V = {
    ("src/multipole_interactions/legacy/multipole_cuda_kernel.cpp", 471): (True,
        "#else of OCTOTIGER_HAVE_HIP: launch_*_post helpers that post cudaLaunchKernel<...> with void* args; the HIP arm "
        "supplies hip_*_ggl_wrapper / hip_*_post (hipLaunchKernelGGL) instead"),
    ("include/backendManager.hpp", 55): (False,
        "CUDA_ENABLED prints the '- NVGPU' label in the backend list: no CUDA code, and the HIP_ENABLED block prints "
        "'- AMDGPU' separately; nothing the ROCm build needs at that line"),
    ("src/hip/plugin-PixelTriplets/CAHitNtupletGeneratorKernelsAlloc.h", 30): (False,
        "`#ifndef __HIPCC__ constexpr` inside the hand-kept HIP twin: the host-compiler (CPU) arm of an `if constexpr`, "
        "not a CUDA side"),
    ("src/multipole_interactions/multipole_kernel_interface.cpp", 116): (False,
        "OCTOTIGER_HAVE_CUDA branch of the device_type == CUDA dispatch; the HIP build has its own device_type == HIP "
        "branch with the identical call (cuda_multipole_interaction_interface, compiled for both); nothing CUDA-specific "
        "to replace at these lines"),
    ("frontend/init_methods.cpp", 84): (False,
        "OCTOTIGER_HAVE_CUDA and OCTOTIGER_HAVE_HIP arms hold the same stream_pool::cleanup<cuda_executor> line (HPX's "
        "cuda executor serves HIP too): identical arms, no port work"),
    ("src/multipole_interactions/legacy/cuda_multipole_interaction_interface.cpp", 168): (True,
        "OCTOTIGER_HAVE_CUDA root non-rho launch through void* args and launch_*_cuda_kernel_post (cudaLaunchKernel); the "
        "HIP arm calls hip_multipole_interactions_kernel_root_non_rho_post / hip_sum_*_post"),
    ("src/hip/CUDACore/HistoContainer.h", 200): (False,
        "#else of __HIP_DEVICE_COMPILE__ in the HIP twin: the host std::atomic path of CountersOnly::add, not a CUDA side"),
    ("src/gromacs/gpu_utils/binary_information.cpp", 69): (True,
        "GMX_GPU_CUDA version reporters (cudaDriverGetVersion, cudaRuntimeGetVersion, NVSHMEM name); the GMX_GPU_HIP arm "
        "has getHipDriverAndRuntimeVersionString (hipDriverGetVersion) for the same binary-information table"),
    ("src/gromacs/ewald/pme_pp_comm_gpu_impl_gpu.cpp", 61): (True,
        "GMX_GPU_CUDA includes cudautils.cuh (+ typecasts); the GMX_GPU_HIP arm includes hiputils.h: the ROCm build needs "
        "its own utility header there"),
    ("src/cuda_util/cuda_scheduler.cpp", 23): (False,
        "OCTOTIGER_HAVE_CUDA cuda_error(cudaError_t) helper that nothing in the tree calls; the HIP build needs no "
        "equivalent"),
    ("src/unitiger/hydro_impl/hydro_cuda_interface.cpp", 88): (True,
        "OCTOTIGER_HAVE_CUDA mask buffers from recycle_allocator_cuda_device; the HIP arm uses recycle_allocator_hip_device"),
    ("src/hip/plugin-PixelVertexFinding/gpuVertexFinderImpl.h", 151): (False,
        "#else // __HIPCC__ in the HIP twin: the serial CPU vertex-finder path (blockIdx/gridDim emulation), not a CUDA side"),
    ("src/hip/CUDACore/HistoContainer.h", 100): (False,
        "`#ifndef __HIPCC__ = hipStreamDefault` default argument in the HIP twin: host-compiler arm, not a CUDA side"),
    ("gpu-clock.cuh", 49): (True,
        "__NVCC__ cudaDeviceSynchronize in the shared header (the Makefiles hipify only main.cu); the __HIP__ arm calls "
        "hipDeviceSynchronize"),
    ("src/monopole_interactions/monopole_kernel_interface.cpp", 172): (False,
        "#else of OCTOTIGER_HAVE_HIP: the 'P2P HIP kernel in a non-HIP build' abort; the non-HIP side of a HIP guard, "
        "no CUDA code"),
    ("src/hip/plugin-PixelVertexFinding/gpuVertexFinderImpl.h", 113): (False,
        "#else of __HIPCC__ in the HIP twin: CPU resetGrid/init/loadTracks calls, not a CUDA side"),
    ("src/hip/test/VertexFinder_t.h", 270): (False,
        "HIP twin test, #else of __HIPCC__: the CPU splitVertices emulation, not a CUDA side"),
    ("src/unitiger/hydro_impl/reconstruct_cuda_kernel.cpp", 231): (True,
        "OCTOTIGER_HAVE_CUDA discs_phase1 launch via executor.post(cudaLaunchKernel<...>, args); the HIP arm posts "
        "disc1_hip_kernel_ggl_wrapper (hipLaunchKernelGGL)"),
    ("src/monopole_interactions/legacy/monopole_cuda_kernel.cpp", 196): (True,
        "#else of OCTOTIGER_HAVE_HIP: launch_sum_p2p_results_post / launch_p2p_cuda_kernel_post through cudaLaunchKernel; "
        "the HIP arm has hip_*_ggl_wrapper posts"),
    ("src/unitiger/hydro_impl/reconstruct_cuda_kernel.cpp", 245): (True,
        "OCTOTIGER_HAVE_CUDA discs_phase2 launch via cudaLaunchKernel; HIP arm disc2_hip_kernel_ggl_wrapper"),
    ("src/hip/test/VertexFinder_t.h", 152): (False,
        "HIP twin test, #else of __HIPCC__: ::memcpy host path, not a CUDA side"),
    ("src/unitiger/hydro_impl/hydro_boundary_exchange.cpp", 21): (False,
        "OCTOTIGER_HAVE_CUDA-only GPU AMR-boundary path (aggregation pool, cuda executor, cudaMemcpyAsync); no HIP version "
        "anywhere, and the caller's non-CUDA branch runs complete_hydro_amr_boundary_vc/_cpu, so the ROCm build works "
        "without an equivalent"),
    ("src/unitiger/hydro_impl/reconstruct_cuda_kernel.cpp", 64): (False,
        "OCTOTIGER_HAVE_CUDA signature `__global__ void __launch_bounds__(64, 4) reconstruct_cuda_kernel(...)`; the HIP arm "
        "is the same signature without the bounds, and the CUDA line compiles on HIP as is: no port work"),
    ("src/hip/plugin-PixelVertexFinding/gpuSortByPt2.h", 64): (False,
        "#else of __HIP_DEVICE_COMPILE__ in the HIP twin: host std::sort path, not a CUDA side"),
    ("src/hip/CUDADataFormats/ZVertexHeterogeneous.h", 10): (False,
        "`#ifndef __HIPCC__` Product include/alias in the HIP twin: host-compiler arm, not a CUDA side"),
    ("frontend/init_methods.cpp", 6): (True,
        "OCTOTIGER_HAVE_CUDA includes (cuda_scheduler.hpp, the cuda interaction interfaces, cuda_buffer_util.hpp); the HIP "
        "arm includes hip_buffer_util.hpp"),
    ("src/monopole_interactions/legacy/cuda_monopole_interaction_interface.cpp", 159): (False,
        "#ifndef OCTOTIGER_HAVE_HIP p2m GPU kernels (cudaMemsetAsync, cuda host allocators, p2m launches): CUDA-only; the "
        "HIP build sets avail = false when contains_multipole_neighbor and runs the CPU implementation, so it works "
        "without an equivalent"),
    ("src/multipole_interactions/legacy/cuda_multipole_interaction_interface.cpp", 200): (True,
        "OCTOTIGER_HAVE_CUDA multipole rho launch + sums through void* args and cudaLaunchKernel posts; HIP arm calls "
        "hip_multipole_interactions_kernel_rho_post and hip_sum_*_post"),
    ("src/gromacs/ewald/pme_gpu_constants.h", 146): (True,
        "GMX_GPU_CUDA block sizes c_*MaxThreadsPerBlock = warps x warp_size (32) and c_gatherMinBlocksPerMP (sm80 value); "
        "the HIP sources define their own sc_*MaxThreadsPerBlock / sc_gatherMinBlocksPerMP per parallelExecutionWidth"),
    ("gpu-l2-cache/main.cu", 132): (False,
        "`#ifdef __NVCC__ measure<64>(i); #else measure<64>(i);`: identical arms, no port work"),
}

for line in open(sys.argv[1]):
    if not line.strip():
        continue
    k = json.loads(line)
    real, reason = V[(k["path"], k["first"])]
    k.update(real=real, reason=reason)
    print(json.dumps(k, sort_keys=True, ensure_ascii=False))
