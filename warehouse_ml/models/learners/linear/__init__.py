"""The linear families: logistic regression, linear discriminant analysis and (in svm/) the
linear SVM, learned from per-iteration sums over the design of models/learners/shared/design.py;
templates under warehouse_ml/sql/models/learners/linear/."""
