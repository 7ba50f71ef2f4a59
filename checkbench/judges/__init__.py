"""Judges: checklist verification (text and log-prob modes), pairwise, listwise."""
