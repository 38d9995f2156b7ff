"""Evaluation: tournaments with seat rotation and duplicate deals, statistics (one
confidence-interval helper), reports and run folders, the runner and its worker pool,
and the self-contained HTML replay page (``html``).

Imports no torch or stable-baselines3 (``tests/test_layering.py`` enforces it), so
agents can be compared without the training extras.

    from parlor.training.evaluation import EvalConfig, evaluate
"""
from parlor.training.evaluation.runner import EvalConfig, evaluate
from parlor.training.evaluation.stats import mean_ci

__all__ = ["EvalConfig", "evaluate", "mean_ci"]
