"""Generation: what a candidate model is asked for each item (`requests`) and the stage that
stores its answers in a run (`responses`)."""
