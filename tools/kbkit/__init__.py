"""kbkit: keep a team's engineering knowledge tree honest."""

__version__ = "0.1.0"
