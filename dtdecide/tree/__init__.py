"""dtdecide.tree."""
