"""Building: blocks stacked into a 3D structure."""
