"""veritype's verifier models: shipped ONNX cross-encoders and the views built on them, and
the larger models that come as wheels of pieces (:mod:`veritype.models.wheels`)."""
