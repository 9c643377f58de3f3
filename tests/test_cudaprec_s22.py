"""Session 22 (cudaprec4) refine steps on CUDA-only projects: ndk-build files (4f), flags of OFF options (4g), the
Windows step's file test (4c), wheels a pinned CUDA torch brings (5u), the configure-time capability probe's one
open finding (8g), and the drop-in library rules' flash-attn readings (LIB007, LIB010)."""
from __future__ import annotations

from porter.pipeline import scan
from porter.settings import Settings


def _findings(tmp_path, files: dict[str, str]) -> list[tuple[str, str, int, str, str | None]]:
    """(path, rule, line, severity, the data key a refine step set or None) of every finding, in order."""
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    keys = ("android_only", "opt_in", "windows_only", "torch_closure", "probe", "amd_answers")
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return [(f.path, f.rule, f.line, str(f.severity), next((k for k in keys if k in dict(f.data)), None))
            for f in r.findings]


NDK_MK = ("LOCAL_PATH := $(call my-dir)\n"                                                      # 1
          "include $(CLEAR_VARS)\n"                                                             # 2
          "LOCAL_MODULE := gpu\n"                                                               # 3
          "LOCAL_LDLIBS := -L$(CUDA_TOOLKIT_ROOT)/targets/armv7-linux-androideabi/lib -lcudart_static\n"  # 4
          "%.o: %.cu\n"                                                                         # 5
          "\tnvcc -target-os-variant=Android -arch=sm_30 -c $< -o $@\n")                        # 6


def test_an_ndk_build_file_is_an_android_build_rocm_never_makes(tmp_path):
    got = _findings(tmp_path, {"jni/Android.mk": NDK_MK, "Makefile": NDK_MK})
    android = [g for g in got if g[0] == "jni/Android.mk"]
    plain = [g for g in got if g[0] == "Makefile"]
    assert android == [("jni/Android.mk", "LIB004", 4, "info", "android_only"),
                       ("jni/Android.mk", "BLD007", 6, "info", "android_only"),
                       ("jni/Android.mk", "BLD005", 6, "info", "android_only")]
    # The same lines in a plain Makefile are the Linux build's: open at the rules' own severities.
    assert plain == [("Makefile", "LIB004", 4, "low", None), ("Makefile", "BLD007", 6, "medium", None),
                     ("Makefile", "BLD005", 6, "low", None)]


OPT_CMAKE = ('option(WARN_NVCC "extra ptxas warnings" OFF)\n'               # 1
             'option(FAST "fast math" ON)\n'                                # 2
             "option(GPU_EXTRA \"extra GPU module\")\n"                     # 3
             "if(WARN_NVCC)\n"                                              # 4
             '  list(APPEND CUDA_NVCC_FLAGS "-Xptxas;-warn-spills")\n'      # 5
             "endif()\n"                                                    # 6
             "if(FAST)\n"                                                   # 7
             '  list(APPEND CUDA_NVCC_FLAGS "-Xptxas;-O3")\n'               # 8
             "endif()\n"                                                    # 9
             "if(GPU_EXTRA)\n"                                              # 10
             "  enable_language(CUDA)\n"                                    # 11
             '  list(APPEND CUDA_NVCC_FLAGS "-Xptxas;-v")\n'                # 12
             "endif()\n"                                                    # 13
             "IF(MSVC_IDE)\n"                                               # 14
             "  SET(CUDA_NVCC_FLAGS -G; ${CUDA_NVCC_FLAGS})\n"              # 15
             "ENDIF()\n")                                                   # 16


def test_flags_only_an_off_option_adds_are_opt_in_and_msvc_ide_is_windows(tmp_path):
    got = [g[1:] for g in _findings(tmp_path, {"CMakeLists.txt": OPT_CMAKE}) if g[1] == "BLD004"]
    # Two hits on each list(APPEND ...) line: the CUDA_NVCC_FLAGS variable and -Xptxas.
    assert got == [
        ("BLD004", 5, "info", "opt_in"), ("BLD004", 5, "info", "opt_in"),  # OFF option, only flags: opted into
        ("BLD004", 8, "medium", None), ("BLD004", 8, "medium", None),      # an ON option is the default build
        ("BLD004", 12, "medium", None), ("BLD004", 12, "medium", None),    # enables CUDA: the GPU build itself
        ("BLD004", 15, "info", "windows_only"),  # IF(MSVC_IDE): the file test now sees MSVC_IDE
    ]


FREEZE = ("torch==2.1.2\n"                        # 1
          "numpy==1.26.4\n"                       # 2
          "nvidia-cublas-cu12==12.1.3.1\n"        # 3
          "nvidia-cuda-cupti-cu12==12.1.105\n"    # 4
          "nvidia-nvjitlink-cu12==12.3.101\n"     # 5
          "nvidia-nvshmem-cu12==3.2.5\n")         # 6: not a wheel torch brings


def test_wheels_a_pinned_cuda_torch_brings_are_its_closure(tmp_path):
    got = _findings(tmp_path, {"a/requirements.txt": FREEZE,
                               "b/requirements.txt": FREEZE.replace("torch==2.1.2", "torchvision==0.16.2")})
    assert [g for g in got if g[0] == "a/requirements.txt"] == [
        ("a/requirements.txt", "LIB010", 3, "info", "torch_closure"),
        ("a/requirements.txt", "LIB011", 4, "info", "torch_closure"),
        ("a/requirements.txt", "CTR005", 5, "info", "torch_closure"),
        ("a/requirements.txt", "LIB011", 6, "medium", None)]
    # Without a torch pin beside them the wheels are the project's own choice: open.
    assert [g for g in got if g[0] == "b/requirements.txt"] == [
        ("b/requirements.txt", "LIB010", 3, "low", None),
        ("b/requirements.txt", "LIB011", 4, "medium", None),
        ("b/requirements.txt", "CTR005", 5, "medium", None),
        ("b/requirements.txt", "LIB011", 6, "medium", None)]


PROBE = ("#include <cstdio>\n"                                                  # 1
         "#include <sstream>\n"                                                 # 2
         "#include <cuda_runtime.h>\n"                                          # 3
         "int main() {\n"                                                       # 4
         "  cudaDeviceProp prop;\n"                                              # 5
         "  cudaGetDeviceProperties(&prop, 0);\n"                                # 6
         "  std::stringstream ss;\n"                                            # 7
         "  if (prop.major != 9999) {\n"                                         # 8
         "    ss << prop.major;\n"                                               # 9
         "    if (prop.major == 2 && prop.minor == 1) ss << 0; else ss << prop.minor;\n"  # 10
         "  }\n"                                                                # 11
         "  printf(\"%s\", ss.str().c_str());\n"                                # 12
         "  return 0;\n"                                                        # 13
         "}\n")                                                                 # 14


def test_a_configure_time_capability_probe_keeps_one_open_finding(tmp_path):
    got = [g for g in _findings(tmp_path, {"cmake/cuda_cc.cpp": PROBE, "tools/query.cpp": PROBE})
           if g[1] == "DEV013"]
    assert got == [
        ("cmake/cuda_cc.cpp", "DEV013", 8, "info", "amd_answers"),
        ("cmake/cuda_cc.cpp", "DEV013", 10, "info", "amd_answers"),
        ("cmake/cuda_cc.cpp", "DEV013", 10, "medium", "probe"),   # the test of minor: one per probe file
        # the same program outside cmake/ is a report, not the build's probe: every test reads info (8g)
        ("tools/query.cpp", "DEV013", 8, "info", "amd_answers"),
        ("tools/query.cpp", "DEV013", 10, "info", "amd_answers"),
        ("tools/query.cpp", "DEV013", 10, "info", "amd_answers")]


def test_flash_attn_imports_and_open_ended_requirements_are_drop_in(tmp_path):
    got = _findings(tmp_path, {
        "m.py": "from flash_attn import flash_attn_varlen_func\nimport xformers.ops\n",
        "setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['flash-attn>=2.6.3'])\n",
        "install.sh": "pip install flash_attn==2.6.3\npip install 'flash-attn<2.7'\n",
    })
    assert [g[:4] for g in got] == [("install.sh", "LIB010", 1, "low"), ("install.sh", "LIB010", 2, "low"),
                                    ("m.py", "LIB007", 2, "low")]
