"""``modtensor.optimizers``: Keras 3's optimizers for modtensor variables (``tf.keras.optimizers`` is Keras's).

``SGD``, ``Adam``, ``AdamW``, ``Adagrad``, ``RMSprop`` with Keras's arguments and update rules;
``opt.apply_gradients(zip(grads, variables))`` runs TF's fused training kernels. See
``modtensor.api.optimizers`` for the details and the one formula difference (Adagrad's epsilon).
"""

from modtensor.api.optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop"]
