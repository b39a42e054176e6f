"""The paper's engine: weak learners, schemes, α, confidences, the boosting loop, the model.

Schapire & Singer (1999), Figure 1 and its multiclass forms (Figures 2, 3 and 5) over the
data layer's ``Dataset``; it knows nothing of estimators, files or training options.
"""
