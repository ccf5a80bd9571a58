"""The level pipeline, one small module per official stage: the response's code (``extract``), the drop grid
(``grid``), the typed level (``types``) and its XML (``levelxml``), then the stability test (``physics``) and the
picture the classifier sees (``render``); ``pipeline`` strings them together; ``glyphs`` draws letters as
drop_block programs (a scripted LLM double for tests and dry runs)."""
