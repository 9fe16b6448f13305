"""What more than one family uses: the one-hot and standardised design (design.py)."""
