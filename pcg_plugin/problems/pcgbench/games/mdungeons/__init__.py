"""MiniDungeons: the level and the game (hero, monsters, treasure) it is played as."""
