"""wscan_example: a wheelscan test fixture."""
