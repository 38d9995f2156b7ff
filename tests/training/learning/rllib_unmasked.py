"""The negative control of tests/training/learning/test_rllib.py: the masked module's networks
with the logits not masked. A module of its own (not in the test module) so that the test module
imports ray.rllib only when its tests run, and Ray can still pickle the class by reference."""
from __future__ import annotations

from parlor.training.learning.rllib_module import MaskedPPOTorchRLModule


class Unmasked(MaskedPPOTorchRLModule):
    """The negative control: the same networks, logits not masked."""

    def _forward(self, batch, **kwargs):
        _, inner = self._split(batch)
        return super(MaskedPPOTorchRLModule, self)._forward(inner, **kwargs)
