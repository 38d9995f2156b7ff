"""Open Face Chinese poker (RULES.md §1): rules, scoring, observation, rendering."""
