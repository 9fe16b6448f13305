"""The linear SVM: its finite Newton method, its SQL passes and its Platt probabilities;
templates under sql/models/learners/linear/svm/."""
