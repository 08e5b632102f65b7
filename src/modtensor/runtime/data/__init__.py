"""The runtime side of tf.data: datasets and iterators as TensorFlow's C++ ``DatasetBase``/``IteratorBase``.

A dataset is an immutable description of a sequence of elements (each a list of host
numpy arrays, one per component); it flows through graphs as a scalar ``variant``
tensor holding the :class:`~modtensor.runtime.data.dataset.DatasetBase` object. An
iterator is a resource (``IteratorResource``) reached through a ``resource`` handle,
holding the iterator tree made from a dataset. The concrete datasets and their kernels
are in ``kernels/cpu/data/``; the Python API is ``modtensor.data``.
"""
