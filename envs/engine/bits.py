"""Bit masks as numpy arrays: the one expansion of many masks into their bits, shared by the
tables built from every mask of a width (Tonk's card-count chunks, Buffalo Bill's suit
categories, OFC's popcount)."""
from __future__ import annotations

import numpy as np


def mask_bits(masks: np.ndarray, width: int) -> np.ndarray:
    """[N, width]: bit ``b`` of each of the ``N`` masks, 0 or 1 (in the masks' integer dtype)."""
    return (np.asarray(masks)[:, None] >> np.arange(width)) & 1
