"""Open Face Chinese poker agents."""
