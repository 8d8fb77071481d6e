"""Screens of the workspace app."""
