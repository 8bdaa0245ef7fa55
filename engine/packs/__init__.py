"""Python hooks for what a pack needs beyond its data, one module per pack."""
