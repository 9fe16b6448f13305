"""The keyed log-probability planner, below the families that use it: a learner declares each
attribute's term as a chain of keyed parameter rows (declarations.py), and the planner chooses
how a scoring query reads them (parameters.py): as literals written into the query
(literal_terms.py), by one join per resolved chain (resolved.py), by dense integer lookup
(lookup.py), or, for many models at once, in long format (long_terms.py)."""
