"""Looking inside a fitted model: exact explanations, attribute rankings, tree diagrams."""
