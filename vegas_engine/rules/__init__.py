"""Rule systems: each module holds one family's data and state class."""
