"""``modtensor.random``: TensorFlow's tf.random names (being written)."""
