"""Evaluation: the one flow of a run, generate -> judge -> score (`flow`), and the run plumbing
it shares with the protocols' commands (`runs`)."""
