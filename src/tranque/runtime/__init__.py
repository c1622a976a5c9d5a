"""What runs between processes: the worker pool where bots think (more adapters to come)."""
