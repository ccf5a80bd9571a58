import sys
from pathlib import Path

# levels.py sits next to the tests (no package __init__ here, like the rest of tests/).
sys.path.insert(0, str(Path(__file__).parent))
