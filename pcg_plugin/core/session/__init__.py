"""Running a session: pytest items, the controller that hears every report, the problems of a run, progress, trials in
flight."""
