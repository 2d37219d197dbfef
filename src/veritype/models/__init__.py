"""veritype's verifier models: shipped ONNX cross-encoders and the views built on them."""
