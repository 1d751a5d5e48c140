"""What the resolvers (schema.py) stand on: one input answered under its budget and kept per block
(`inputs`), and a portfolio's own rules (`portfolio`). schema.py builds the fields from them."""
