"""The world, the handbook and the task fixtures, shipped in the wheel as `openenv_bug_triage.data`."""
