"""`checkbench audit`: which checks of a run carry signal, and how well the benchmark as a
whole separates and orders its models, from the verdicts a run already holds (no model call).

`matrix` reads the verdicts into arrays (check x judge x model x sample), `checks` gives every
check's rates and flags, `texts` the flags its text alone raises (placeholders, echoes,
near-duplicates), `irt` the two-parameter item response model, `figures` the benchmark's
separability, rank stability and effective number of checks, `refine` the benchmark without
the flagged checks, `run` puts them together and `render` prints them.
"""
