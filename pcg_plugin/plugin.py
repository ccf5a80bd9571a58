"""pytest entry point (pytest11 `pcg`): hooks only; logic lives in the pure modules."""
