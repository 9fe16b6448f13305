"""What more than one family uses: the class table (classes.py) and the one-hot and
standardised design (design.py)."""
