"""Buffalo Bill: score-sheet poker with exchanges and chips (docs/rules.md §2)."""
