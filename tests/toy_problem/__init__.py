"""The smallest complete problem: the core's own tests run it, so the harness is tested without Science Birds."""
