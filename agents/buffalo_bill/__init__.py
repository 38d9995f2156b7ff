"""Buffalo Bill agents."""
