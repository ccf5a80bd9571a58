"""Multi-turn, multi-role episodes (dialogue games): the harness's first machinery for them, problem-agnostic.

A game master (``master.GameMaster``) says what each role is told first and what each reply means; the turn
loop (``loop.play``) keeps each role's chat history, asks the roles in turn, stops on the master's "done", on an
invalid reply (abort), on a refused model call (abort) or at the turn limit, and returns a ``Transcript`` of
typed events. A role speaks through a ``Speaker``: a model behind one ``TrialChat`` per episode (every turn
stored before use, replayed in order, so a killed run resumes), or a scripted test double. Scores are the
problem's, read from the transcript through the ``Scorer`` hooks. clembench's imagegame is the first user.

Games with a host, many seats and stages (GameEval's Ask-Guess, SpyFall, TofuKingdom) are plain procedures over
a ``table.Table`` instead: seats with private histories (each message with the role the game gives it), one
``Model`` callable through which every call is snapshotted and stored, votes, eliminations and typed events.
"""
