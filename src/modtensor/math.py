"""``modtensor.math``: TensorFlow's tf.math names (being written)."""
