"""The model families, one subpackage each (bayes/, linear/ with svm/, neighbors/, tree/) with
its templates in the mirrored folder under warehouse_ml/sql/models/learners/, and its kinds declared
in its own ``specs`` module (found by models/kinds.py); shared/ holds what more than one family
uses."""
