"""Strong baseline, our own re-write of the official zero-shot multi-turn example: task, then a format turn.

The format turn shows one worked answer (a letter T), as the official few-shot example does, so
that a small model sees what a block of drop_block lines looks like."""

from chatgpt4pcg.competition import chat_with_chatgpt, run_evaluation
from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop

# Sent in this order (the official example globbed its prompt files unsorted; here the order is explicit).
TURNS = (
    """Let's design the uppercase letter <OBJECT> as a structure of wooden blocks in a 2D physics game.
The field is a grid of 20 columns (x = 0..19) and 16 rows; a dropped block falls straight down until it
lands on the ground or on another block. Block types:
- 'b11': 1x1 square;
- 'b31': 3 cells wide, 1 high, centred on x;
- 'b13': 1 cell wide, 3 high.
A block is placed with drop_block('<type>', <x>) and x must be a whole number. Think about which strokes the
letter <OBJECT> has and how to build each of them so that the finished structure is stable and recognisable.""",
    """Now write the final answer. Use Markdown. The last code block (fenced with triple backticks) must contain
only drop_block calls, one per line, no loops, no variables and no comments. For example, a letter T:
```
drop_block('b13', 10)
drop_block('b13', 10)
drop_block('b11', 10)
drop_block('b31', 10)
```""",
)


class ZeroShotMultiTurn(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target_character: str) -> str:
        messages: list[dict[str, str]] = []
        reply = ""
        for turn in TURNS:
            messages.append({"role": "user", "content": turn.replace("<OBJECT>", target_character)})
            reply = chat_with_chatgpt(ctx, messages, n=1)[0]
            messages.append({"role": "assistant", "content": reply})
        return reply


if __name__ == "__main__":
    run_evaluation("zero_shot_multi_turn", ZeroShotMultiTurn, num_trials=10)
