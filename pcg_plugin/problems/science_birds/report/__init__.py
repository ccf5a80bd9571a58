"""What a finished run shows and leaves: the HTML leaderboard (``html``, with ``thumbnails``), the terminal
summary (``terminal``) and the organizers' own folder layout of stage files (``official_layout``)."""
