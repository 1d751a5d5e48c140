"""Spark: SparkLend (the Aave v3 method on Spark's markets) and Spark's savings vaults (positions.py)."""
