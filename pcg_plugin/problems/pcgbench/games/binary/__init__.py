"""Binary: a maze of solid and empty tiles."""
