"""OFC agents: the Fantasyland solver (more OFC advisors join here)."""
