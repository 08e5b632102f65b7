"""``tf.io`` / ``tf.image``'s image codecs against TF 2.21: decode_jpeg/png/bmp/gif/image, decode_and_crop_jpeg,
encode_jpeg/png, extract_jpeg_shape, is_jpeg and the JPEG-quality augmentations (adjust, random, stateless).

Golden snippets (tests/golden/image_codecs, tools/make_golden_image_codecs.py) replayed as in
test_image_ops_golden.py: TF's graph node for node where the snippet's mode has "g", TF's eager values or errors
where it has "e". The codec ops' own pixel and byte cases are in tests/kernels/test_golden_kernels.py.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "codec_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "codec_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
