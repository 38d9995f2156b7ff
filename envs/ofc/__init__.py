"""Open Face Chinese poker (docs/rules.md §1): rules, scoring, observation, rendering."""
