"""Evaluation: tournaments with seat rotation and duplicate deals (``tournament``, ``deals``),
statistics (``stats``: one confidence-interval helper), agent names (``labels``), the
runner and its worker pool (``runner``), the resumable run folder (``run_folder``),
reports and plots (``report``, ``plots``) and the self-contained HTML replay page (``html``).

Imports no torch or stable-baselines3 (``tests/test_layering.py`` enforces it), so
agents can be compared without the training extras.

    from parlor.training.evaluation import EvalConfig, evaluate
"""
from parlor.training.evaluation.runner import EvalConfig, evaluate
from parlor.training.evaluation.stats import mean_ci

__all__ = ["EvalConfig", "evaluate", "mean_ci"]
