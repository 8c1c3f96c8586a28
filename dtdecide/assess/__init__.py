"""dtdecide.assess."""
