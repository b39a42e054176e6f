"""One fit, around the engine: parameters, inputs, hold-out, calibration, checkpoints."""
