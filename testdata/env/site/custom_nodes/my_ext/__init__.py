# a custom node: its extension was built in place
