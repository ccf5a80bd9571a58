"""The Giver's opening, written by a program: it lists the filled rows so the model needs to copy, not count."""

from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

ORDINALS = ("first", "second", "third", "fourth", "fifth")


class RowByRow(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_grid: str) -> str:
        rows = target_grid.split("\n")
        filled = [f"- the {ORDINALS[i]} row is: {row}" for i, row in enumerate(rows) if set(row.split()) != {"▢"}]
        return (
            "We play a drawing game. I see a 5 by 5 grid of letters and you will tell my partner how to draw it.\n"
            'Give one command per answer, as one line starting with "Command: ", and say "Command: DONE" '
            "when everything is described. Empty cells are shown as ▢.\n\n"
            f"The grid:\n{target_grid}\n\nThe rows with letters:\n" + "\n".join(filled) + "\n\n"
            "What is your next command?"
        )
