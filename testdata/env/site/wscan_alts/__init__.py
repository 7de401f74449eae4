"""wscan_alts: a wheelscan test fixture."""
