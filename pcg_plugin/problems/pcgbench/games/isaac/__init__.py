"""The Binding of Isaac: a floor of connected rooms."""
