"""dtdecide.datasets."""
