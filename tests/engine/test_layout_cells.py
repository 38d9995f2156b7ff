"""float_cells: the typed memoryview the observers write single entries through."""
import numpy as np
import pytest

from parlor.envs.engine.layout import float_cells


def test_float_cells_writes_land_in_the_array():
    buf = np.zeros(6, dtype=np.float32)
    cells = float_cells(buf)
    cells[2] = 0.5
    cells[5] += 1.25
    assert buf.tolist() == [0.0, 0.0, 0.5, 0.0, 0.0, 1.25]
    assert len(cells) == 6 and cells.format == "f"


def test_float_cells_flattens_a_contiguous_2d_array():
    rows = np.zeros((2, 3), dtype=np.float32)
    float_cells(rows)[4] = 1.0
    assert rows[1, 1] == 1.0


@pytest.mark.parametrize("array", [np.zeros(4, dtype=np.float64), np.zeros(8, dtype=np.float32)[::2]])
def test_float_cells_refuses_other_dtypes_and_strided_views(array):
    with pytest.raises(ValueError, match="C-contiguous float32"):
        float_cells(array)
