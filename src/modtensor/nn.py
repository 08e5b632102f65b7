"""``modtensor.nn``: TensorFlow's tf.nn names (being written)."""
