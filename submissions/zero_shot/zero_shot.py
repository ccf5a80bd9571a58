"""Weak baseline, our own re-write of the official zero-shot example: one user message, the reply is final."""

from chatgpt4pcg.competition import chat_with_chatgpt, run_evaluation
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

TASK = """You are building a picture of the uppercase letter <OBJECT> out of wooden blocks in a 2D physics game.
The playing field is a grid 20 columns wide (x = 0 to 19, left to right) and 16 rows high; blocks fall from
the top and stop on whatever is below them, like in Tetris. Three kinds of block exist:
- 'b11': a 1x1 square,
- 'b31': a horizontal 3x1 bar whose middle cell is at the x you give,
- 'b13': a vertical 1x3 bar.
You place a block with drop_block('<type>', <x>), where <x> is a whole number.
Write the sequence of drop_block calls that makes the structure look like the letter <OBJECT> and stand
without falling over. Put all the calls, one per line, in a single code block fenced by triple backticks."""


class ZeroShot(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        prompt = TASK.replace("<OBJECT>", target_character)
        return chat_with_chatgpt(ctx, [{"role": "user", "content": prompt}], n=1)[0]


if __name__ == "__main__":
    run_evaluation("zero_shot", ZeroShot, num_trials=10)
