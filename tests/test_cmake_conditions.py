"""CMake's if() chains as arms (porter.source.cmake_conditions): where each arm opens and closes, nested chains
apart, an unclosed chain running past the file's last line."""
from porter.source.cmake_conditions import Arm, arms


def test_each_arm_of_each_chain_with_its_lines_and_condition():
    code = (b"if(A)\n x\nelseif(USE_NVTX)\n if(B)\n y\n endif()\nelse()\n z\nendif()\n"  # 1-9
            b"IF (C)\n w\n")  # 10-11, never closed: its arm runs past line 11
    assert arms(code) == (Arm(1, 0, 1, 3, "A"), Arm(4, 0, 4, 6, "B"), Arm(1, 1, 3, 7, "USE_NVTX"),
                          Arm(1, 2, 7, 9, ""), Arm(10, 0, 10, 13, "C"))
