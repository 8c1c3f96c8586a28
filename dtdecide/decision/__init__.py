"""dtdecide.decision."""
