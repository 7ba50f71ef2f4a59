"""Loaders that turn benchmark files into Items (and published runs into Responses and Verdicts)."""
