"""dtdecide.export."""
