"""Training veritype's verifier models (needs the ``train`` extra: torch, transformers, onnx)."""
