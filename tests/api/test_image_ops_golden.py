"""``tf.image``'s composite functions against TF 2.21: flips, rot90, transpose, crops and pads, convert_image_dtype,
brightness/contrast/gamma, per_image_standardization, the colour-space conversions, image_gradients,
total_variation, psnr, the seeded random augmentations and their stateless_random_* variants.

Golden snippets (tests/golden/image_ops, tools/make_golden_image_ops.py) replayed as in test_breadth_ops.py: TF's
graph node for node (with the static shapes of placeholders' results) where the snippet's mode has "g", TF's eager
values or errors where it has "e".
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case, tensorflow_names


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "image_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id, function_numbers_differ="TF numbers cond branch functions by a process-wide counter")


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "image_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_image_names_are_tensorflows() -> None:
    assert set(tf.image.__all__) <= tensorflow_names("tf.image")
    for name in tf.image.__all__:
        assert hasattr(tf.image, name), name
