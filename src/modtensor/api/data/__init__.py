"""Implementation of ``modtensor.data`` (TensorFlow's ``tf.data``): datasets, iterators, options, readers."""
