"""Bootstrap intervals over trials: the statistics every problem's ranks, gates and comparisons share."""
