"""Buffalo Bill: score-sheet poker with exchanges and chips (RULES.md §2)."""
