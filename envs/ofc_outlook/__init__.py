"""The OFC planner and the ``features=True`` observation block, apart from the rules
(``parlor.envs.ofc``), one job per module:

- ``rollouts``: a regular turn's candidates and the rows their boards complete to
  (``TurnPlans``), sampled completions of a board and their statistics (``TurnStats``):
  the rule-based heuristic's planner and the advisors' foul risks;
- ``outlook``: a turn completed once with a fixed noise table (``CompletedTurn``): the
  feature block's outlook, read card by card;
- ``features``: the optional ``features=True`` observation block (``OFCGame.observe`` and
  ``encode(view)``);
- ``turn_kernel``, ``block_kernel``: the compiled (numba) passes the numbers come from:
  a turn's completion and statistics, the block's board part.

Reads only an OFC View (or the State's observation vector): nothing hidden. The rules
import it only for the ``features=True`` observation; ``parlor.agents.ofc`` builds on it.
``tests/ofc_outlook/oracle.py`` states the same numbers in numpy / Python, and the tests
hold the kernels to it.
"""
