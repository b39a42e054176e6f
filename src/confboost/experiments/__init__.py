"""The paper's experiments and the demonstration job, as code that writes reports."""
