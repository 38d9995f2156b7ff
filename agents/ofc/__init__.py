"""Open Face Chinese poker agents: what agents and training know about OFC beyond its rules.

``heuristic`` (``OFCHeuristic``, the rule-based player, and ``OutlookPlanner``);
``fantasyland`` (the exact Fantasyland solver and ``FantasylandPlayer``, which every
OFC agent uses to play its Fantasyland hands). The advisors (found by env name
through ``agents.advisors.advisor_for``): ``advisor`` (``OFCAdvisor``: one object per
game offering the guards and the estimators), ``guards`` (action guards: drop the
actions a tolerance finds too risky), ``endgame`` (exact and near-exact foul
probabilities of a Pineapple endgame), ``risk`` (foul-risk estimators, the potential
of potential-based reward shaping). None of them is a rule: the game (``envs.ofc``)
does not use them.
"""
