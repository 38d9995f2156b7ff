"""What ``parlor bench`` measures: environment speed against PettingZoo's texas_holdem_v4
(:mod:`.env_speed`) and the hand evaluator against treys and eval7 (:mod:`.hands`), side by
side in one run."""
