"""Super Mario Bros.: the level (problem, kind, level) and the engine it is played with."""
