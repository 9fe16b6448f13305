"""Scoring a fitted model: the scoring query, how it reads the parameters, predictions,
prediction views and the SQL exported to other warehouses."""
