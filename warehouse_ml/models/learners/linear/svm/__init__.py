"""The linear SVM: its finite Newton method, its SQL passes and its Platt probabilities;
templates under warehouse_ml/sql/models/learners/linear/svm/."""
