"""Running a participant's program: one subsystem, one package.

``run`` starts a trial and serves its model calls over a pipe; ``forks`` is the fork server each trial is forked
from, ``child`` the code that runs inside the trial, ``start`` the start method (``--pcg-sandbox-start``);
``environments`` installs a program's requirements into a cached environment and ``imports`` checks what it
imports; ``official_api`` holds the stand-ins for the competitions' own packages (``chatgpt4pcg``, ``llms4pcg``)
that a program imports inside the sandbox. Nothing is imported here, so ``python -m pcg_plugin.sandbox.child``
and the option's module start light.
"""
