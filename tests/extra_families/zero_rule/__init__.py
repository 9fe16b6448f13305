"""ZeroR, the prior-only classifier: a family written from scratch outside the library."""
