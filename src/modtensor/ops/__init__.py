"""The standard op set: TensorFlow's OpDefs (names, args, attrs, defaults) and shape functions.

Importing this package registers every op in the global registry (deferred: specs
are parsed on the registry's first query, so the import stays cheap).
"""

from modtensor.ops import (  # noqa: F401
    array_grad_ops,
    array_ops,
    audio_ops,
    batch_norm_ops,
    bitwise_ops,
    control_flow_ops,
    control_ops,
    data_flow_ops,
    dataset_ops,
    functional_ops,
    image_codec_ops,
    image_grad_ops,
    image_ops,
    indexing_ops,
    linalg_grad_ops,
    linalg_ops,
    list_ops,
    logging_ops,
    lookup_ops,
    math_grad_ops,
    math_ops,
    nn_grad_ops,
    nn_ops,
    parsing_ops,
    ragged_ops,
    random_ops,
    resource_variable_ops,
    script_ops,
    segment_ops,
    sendrecv_ops,
    sort_ops,
    sparse_ops,
    spectral_ops,
    stateless_random_ops,
    string_ops,
    training_ops,
)
