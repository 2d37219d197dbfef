"""Truth-aware decoding."""
