"""Migration tracking: the burndown of a port over the first-parent history of a git repository."""
