"""The vault-style protocols: Midas, Avantis and Avant as data over one method (positions.py), and Neutrl,
that answer plus the hosted API's single `vaultPosition` (neutrl.py)."""
