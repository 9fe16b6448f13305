"""The counting families: Naive Bayes and Tree-Augmented Naive Bayes (with its Chow-Liu tree),
learned from GROUP BY counts; templates under warehouse_ml/sql/models/learners/bayes/."""
