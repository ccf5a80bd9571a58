"""The answerer's prompt, written per word: the rules, then the word, with the game's two hard constraints
(never say the word; say gameover when it is guessed) repeated at the end, where small models heed them."""

from chatgpt4pcg.models.trial_context import TrialContext
from chatgpt4pcg.models.trial_loop import TrialLoop


class Answerer(TrialLoop):
    @staticmethod
    def run(ctx: TrialContext, target: str) -> str:
        return (
            'You are the answerer in the game "Ask-Guess". The given word is "<<word>>". '
            "First give a short description of it without saying it, then answer each question of the "
            "questioner truthfully and briefly, adding a hint when it helps.\n"
            f"Rules: never write the word {target!r} yourself. When the questioner names it (or a kind of it), "
            'reply with exactly "gameover".'
        )
