"""The built-in passes, one module each; ``meta_optimizer`` lists them in TensorFlow's order."""
