"""What a trial leaves behind: its calls, its row in ``trials.jsonl``, its transcript, the folder it writes in."""
