"""Intake sources: one module per place merged changes and bugfix runs come from."""
