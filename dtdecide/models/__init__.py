"""dtdecide.models."""
