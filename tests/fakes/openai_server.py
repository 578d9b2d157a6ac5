"""A fake at the network edge: a real server on 127.0.0.1 (fixtures defined here)."""
