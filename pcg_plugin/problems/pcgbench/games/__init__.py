"""One package per benchmark game, each with its engine, solver or level reader beside its ``problem`` module
(``make`` builds a variant; ``registry`` names them). A game imports the framework (``..bench``), never the
harness adapter above it."""
