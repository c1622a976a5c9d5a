"""tranque: Cuban dominoes on the double-nine set."""
