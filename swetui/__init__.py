"""swetui: a terminal workspace for an AI coding agent, with context you can see and steer."""

__version__ = "0.1.0"
