"""Record what TensorFlow's ``tf.image`` functions build and compute, for modtensor's front-end tests.

    /work/tfvenv/bin/python tools/make_golden_image_ops.py

The sibling of ``tools/make_golden_frontend_breadth.py`` (same snippet format and records, the
functions of ``tools/make_golden_frontend_ops.py`` reused): the flips, ``rot90``, ``transpose``,
crops and pads, ``convert_image_dtype``, brightness/contrast/gamma/hue/saturation, standardization,
the colour-space conversions (HSV included), ``extract_patches``, ``image_gradients``,
``total_variation``, ``psnr``, the seeded random augmentations and their ``stateless_random_*``
variants, on 3-D and 4-D, uint8 and float images, placeholders with unknown dims (graph mode: TF's
nodes and static shapes) and TF's errors for bad input. Writes ``tests/golden/image_ops/``
(``graph_cases.json``, ``eager_cases.json``), read by ``tests/api/test_image_ops_golden.py``, and in
``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU kernel constraints, shape
and kernel cases) for the ops added with these functions (RGBToHSV, HSVToRGB, AdjustHue,
AdjustSaturation, ExtractImagePatches). TF's public ``tf.image`` names are recorded by
``make_golden_frontend_breadth.py`` (``frontend_breadth/api_names.json``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "image_ops"

# Images: 3-D float [h=3, w=4, c=2], 4-D float [b=2, 3, 4, 2], 3-D uint8 RGB [2, 3, 3], 4-D uint8 RGB.
F3 = "tf.reshape(tf.range(24.0), [3, 4, 2])"
F4 = "tf.reshape(tf.range(48.0), [2, 3, 4, 2])"
U3 = "tf.constant([[[0, 10, 255], [30, 40, 50], [200, 100, 0]], [[1, 2, 3], [250, 128, 64], [7, 77, 177]]], tf.uint8)"
U4 = "tf.reshape(tf.range(54, dtype=tf.int32) * 4, [2, 3, 3, 3])"
U4 = f"tf.cast({U4}, tf.uint8)"
RGB = "tf.reshape(tf.range(24.0) / 24.0, [2, 4, 3])"
RGB4 = "tf.reshape(tf.range(48.0) / 48.0, [2, 2, 4, 3])"
# Colours with every hue sector, ties, greys, black and white: [2, 4, 3] floats in [0, 1].
HUES = (
    "tf.constant([[[0.9, 0.2, 0.1], [0.3, 0.8, 0.1], [0.1, 0.4, 0.7], [0.6, 0.1, 0.8]], "
    "[[0.5, 0.5, 0.2], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.25, 0.7, 0.7]]])"
)
HSV = (
    "tf.constant([[[0.0, 1.0, 1.0], [0.2, 0.5, 0.8], [0.55, 0.3, 0.4]], "
    "[[0.9, 1.0, 0.6], [1.0, 0.0, 1.0], [1.3, 0.7, 0.5]]])"
)
P12 = "tf.reshape(tf.range(2 * 5 * 6 * 2, dtype=tf.float32), [2, 5, 6, 2])"

# (case id, snippet, modes) as in make_golden_frontend_ops.py; ids start with "image_".
CASES: list[tuple[str, str, str]] = [
    # ------------------------------------------------------------------ flips, rot90, transpose
    ("image_flip_left_right_3d", f"tf.image.flip_left_right({F3})", "ge"),
    ("image_flip_left_right_4d", f"tf.image.flip_left_right({F4})", "ge"),
    ("image_flip_left_right_uint8", f"tf.image.flip_left_right({U3})", "e"),
    ("image_flip_left_right_ph", "tf.image.flip_left_right(ph(tf.float32, [None, None, 3]))", "g"),
    ("image_flip_left_right_ph4", "tf.image.flip_left_right(ph(tf.uint8, [None, 5, None, 1]))", "g"),
    ("image_flip_up_down_3d", f"tf.image.flip_up_down({F3})", "ge"),
    ("image_flip_up_down_4d", f"tf.image.flip_up_down({F4})", "e"),
    ("image_flip_bad_rank", "tf.image.flip_left_right(tf.ones([2, 2]))", "ge"),
    ("image_flip_rank5", "tf.image.flip_up_down(tf.ones([1, 1, 2, 2, 1]))", "ge"),
    ("image_flip_zero_dim", "tf.image.flip_up_down(tf.ones([0, 2, 1]))", "g"),
    ("image_rot90_3d", f"tf.image.rot90({F3})", "ge"),
    ("image_rot90_k2", f"tf.image.rot90({F3}, k=2)", "e"),
    ("image_rot90_k3_4d", f"tf.image.rot90({F4}, k=3)", "ge"),
    ("image_rot90_k_negative", f"tf.image.rot90({F4}, k=-1)", "e"),
    ("image_rot90_k0", f"tf.image.rot90({U3}, k=4)", "e"),
    ("image_rot90_bad_k", f"tf.image.rot90({F3}, k=[1, 2])", "ge"),
    ("image_transpose_3d", f"tf.image.transpose({F3})", "ge"),
    ("image_transpose_4d", f"tf.image.transpose({F4}, name='tr')", "ge"),
    ("image_transpose_ph", "tf.image.transpose(ph(tf.float32, [2, None, None, 3]))", "g"),
    ("image_transpose_bad_rank", "tf.image.transpose(tf.ones([3]))", "ge"),
    # ------------------------------------------------------------------ crops and pads
    ("image_central_crop_3d", f"tf.image.central_crop({F3}, 0.5)", "ge"),
    ("image_central_crop_4d", "tf.image.central_crop(tf.reshape(tf.range(50.0), [2, 5, 5, 1]), 0.6)", "ge"),
    ("image_central_crop_one", f"tf.image.central_crop({F3}, 1.0)", "ge"),
    ("image_central_crop_ph", "tf.image.central_crop(ph(tf.float32, [None, None, 3]), 0.5)", "g"),
    ("image_central_crop_bad_fraction", f"tf.image.central_crop({F3}, 1.5)", "ge"),
    ("image_central_crop_zero_fraction", f"tf.image.central_crop({F3}, 0.0)", "e"),
    ("image_central_crop_bad_rank", "tf.image.central_crop(tf.ones([4, 4]), 0.5)", "e"),
    ("image_crop_to_bounding_box_3d", f"tf.image.crop_to_bounding_box({F3}, 1, 1, 2, 2)", "ge"),
    ("image_crop_to_bounding_box_4d", f"tf.image.crop_to_bounding_box({F4}, 0, 2, 3, 2)", "ge"),
    ("image_crop_to_bounding_box_uint8", f"tf.image.crop_to_bounding_box({U3}, 1, 0, 1, 3)", "e"),
    ("image_crop_to_bounding_box_ph",
     "tf.image.crop_to_bounding_box(ph(tf.float32, [None, None, None, 3]), 1, 2, 4, 5)", "g"),
    ("image_crop_to_bounding_box_tensor_offsets",
     f"tf.image.crop_to_bounding_box({F3}, tf.constant(1), tf.constant(0), 2, 3)", "ge"),
    ("image_crop_too_big", f"tf.image.crop_to_bounding_box({F3}, 0, 0, 4, 4)", "ge"),
    ("image_crop_negative_offset", f"tf.image.crop_to_bounding_box({F3}, -1, 0, 2, 2)", "ge"),
    ("image_crop_zero_target", f"tf.image.crop_to_bounding_box({F3}, 0, 0, 0, 2)", "e"),
    ("image_crop_tensor_offset_too_big", f"tf.image.crop_to_bounding_box({F3}, tf.constant(2), 0, 2, 2)", "e"),
    ("image_crop_bad_rank", "tf.image.crop_to_bounding_box(tf.ones([3, 3]), 0, 0, 1, 1)", "ge"),
    ("image_pad_to_bounding_box_3d", f"tf.image.pad_to_bounding_box({F3}, 1, 2, 5, 7)", "ge"),
    ("image_pad_to_bounding_box_4d", f"tf.image.pad_to_bounding_box({U4}, 0, 1, 4, 4)", "ge"),
    ("image_pad_to_bounding_box_ph", "tf.image.pad_to_bounding_box(ph(tf.float32, [None, None, 1]), 1, 1, 6, 6)",
     "g"),
    ("image_pad_too_small", f"tf.image.pad_to_bounding_box({F3}, 0, 0, 2, 4)", "ge"),
    ("image_pad_negative_offset", f"tf.image.pad_to_bounding_box({F3}, 0, -1, 3, 4)", "ge"),
    ("image_resize_with_crop_or_pad_crop", f"tf.image.resize_with_crop_or_pad({F3}, 2, 2)", "ge"),
    ("image_resize_with_crop_or_pad_pad", f"tf.image.resize_with_crop_or_pad({F4}, 5, 6)", "ge"),
    ("image_resize_with_crop_or_pad_mixed", f"tf.image.resize_with_crop_or_pad({U3}, 4, 1)", "e"),
    ("image_resize_with_crop_or_pad_ph", "tf.image.resize_with_crop_or_pad(ph(tf.float32, [None, None, 3]), 4, 4)",
     "g"),
    ("image_resize_with_crop_or_pad_bad_target", f"tf.image.resize_with_crop_or_pad({F3}, 0, 2)", "ge"),
    ("image_resize_with_pad_3d", f"tf.image.resize_with_pad({F3}, 6, 4)", "ge"),
    ("image_resize_with_pad_4d", f"tf.image.resize_with_pad({F4}, 3, 8)", "e"),
    ("image_resize_with_pad_nearest", f"tf.image.resize_with_pad({F4}, 5, 5, method='nearest')", "e"),
    ("image_resize_with_pad_uint8", f"tf.image.resize_with_pad({U3}, 4, 4)", "e"),
    # ------------------------------------------------------------------ convert_image_dtype
    ("image_convert_uint8_to_float", f"tf.image.convert_image_dtype({U3}, tf.float32)", "ge"),
    ("image_convert_float_to_uint8", f"tf.image.convert_image_dtype({RGB}, tf.uint8)", "ge"),
    ("image_convert_float_to_uint8_saturate",
     "tf.image.convert_image_dtype(tf.constant([-0.5, 0.0, 0.5, 1.0, 1.5]), tf.uint8, saturate=True)", "ge"),
    ("image_convert_float_to_int32_saturate",
     "tf.image.convert_image_dtype(tf.constant([-2.0, 0.25, 1.0, 2.0]), tf.int32, saturate=True)", "e"),
    ("image_convert_uint8_to_int16", f"tf.image.convert_image_dtype({U3}, tf.int16)", "ge"),
    ("image_convert_int32_to_uint8", "tf.image.convert_image_dtype(tf.constant([0, 2**24, 2**31 - 1]), tf.uint8)",
     "ge"),
    ("image_convert_int32_to_uint8_saturate",
     "tf.image.convert_image_dtype(tf.constant([-5, 2**24, 2**31 - 1]), tf.uint8, saturate=True)", "e"),
    ("image_convert_uint8_to_int8_saturate",
     f"tf.image.convert_image_dtype({U3}, tf.int8, saturate=True)", "e"),
    ("image_convert_float_to_half", f"tf.image.convert_image_dtype({RGB}, tf.float16)", "ge"),
    ("image_convert_uint8_to_double", f"tf.image.convert_image_dtype({U3}, tf.float64, name='conv')", "ge"),
    ("image_convert_same", f"tf.image.convert_image_dtype({U3}, tf.uint8)", "ge"),
    ("image_convert_bool", "tf.image.convert_image_dtype(tf.constant([True]), tf.float32)", "ge"),
    ("image_convert_to_string", f"tf.image.convert_image_dtype({U3}, tf.string)", "e"),
    # ------------------------------------------------------------------ brightness, contrast, gamma
    ("image_adjust_brightness_float", f"tf.image.adjust_brightness({RGB}, 0.25)", "ge"),
    ("image_adjust_brightness_uint8", f"tf.image.adjust_brightness({U3}, 0.2)", "ge"),
    ("image_adjust_brightness_negative", f"tf.image.adjust_brightness({U4}, -0.5)", "e"),
    ("image_adjust_brightness_tensor_delta", f"tf.image.adjust_brightness({RGB}, tf.constant(0.5, tf.float64))",
     "e"),
    ("image_adjust_contrast_float", f"tf.image.adjust_contrast({RGB4}, 2.0)", "ge"),
    ("image_adjust_contrast_uint8", f"tf.image.adjust_contrast({U3}, 1.5)", "ge"),
    ("image_adjust_contrast_3d_low", f"tf.image.adjust_contrast({RGB}, 0.5)", "e"),
    ("image_adjust_contrast_bad_rank", "tf.image.adjust_contrast(tf.ones([2, 2]), 0.5)", "ge"),
    ("image_adjust_gamma_float", f"tf.image.adjust_gamma({RGB}, gamma=2.0, gain=0.5)", "ge"),
    ("image_adjust_gamma_uint8", f"tf.image.adjust_gamma({U3}, 0.5)", "ge"),
    ("image_adjust_gamma_default", f"tf.image.adjust_gamma({RGB4})", "e"),
    ("image_adjust_gamma_negative", f"tf.image.adjust_gamma({RGB}, -1.0)", "ge"),
    ("image_adjust_gamma_tensor", f"tf.image.adjust_gamma({RGB}, tf.constant(2.0))", "ge"),
    ("image_adjust_gamma_tensor_negative", f"tf.image.adjust_gamma({RGB}, tf.constant(-2.0))", "e"),
    ("image_per_image_standardization_3d", f"tf.image.per_image_standardization({F3})", "ge"),
    ("image_per_image_standardization_uint8", f"tf.image.per_image_standardization({U4})", "ge"),
    ("image_per_image_standardization_flat", "tf.image.per_image_standardization(tf.ones([2, 2, 1]))", "e"),
    ("image_per_image_standardization_ph",
     "tf.image.per_image_standardization(ph(tf.uint8, [None, None, None, 3]))", "g"),
    ("image_per_image_standardization_bad_rank", "tf.image.per_image_standardization(tf.ones([4]))", "ge"),
    # ------------------------------------------------------------------ colour spaces
    ("image_rgb_to_grayscale_float", f"tf.image.rgb_to_grayscale({RGB})", "ge"),
    ("image_rgb_to_grayscale_uint8", f"tf.image.rgb_to_grayscale({U4})", "ge"),
    ("image_rgb_to_grayscale_named", f"tf.image.rgb_to_grayscale({U3}, name='gray')", "ge"),
    ("image_grayscale_to_rgb", "tf.image.grayscale_to_rgb(tf.reshape(tf.range(6.0), [2, 3, 1]))", "ge"),
    ("image_grayscale_to_rgb_4d", "tf.image.grayscale_to_rgb(tf.ones([2, 2, 2, 1], tf.uint8))", "e"),
    ("image_grayscale_to_rgb_ph", "tf.image.grayscale_to_rgb(ph(tf.float32, [None, None, 1]))", "g"),
    ("image_grayscale_to_rgb_bad", "tf.image.grayscale_to_rgb(tf.ones([2, 2, 3]))", "ge"),
    ("image_grayscale_to_rgb_rank1", "tf.image.grayscale_to_rgb(tf.ones([1]))", "ge"),
    ("image_rgb_to_yuv", f"tf.image.rgb_to_yuv({RGB})", "ge"),
    ("image_yuv_to_rgb", f"tf.image.yuv_to_rgb({RGB4})", "ge"),
    ("image_rgb_to_yiq", f"tf.image.rgb_to_yiq({RGB4})", "ge"),
    ("image_yiq_to_rgb", f"tf.image.yiq_to_rgb({RGB})", "ge"),
    ("image_rgb_to_yiq_double", f"tf.image.rgb_to_yiq(tf.cast({RGB}, tf.float64))", "e"),
    ("image_rgb_to_yuv_ph", "tf.image.rgb_to_yuv(ph(tf.float32, [None, None, 3]))", "g"),
    ("image_rgb_to_yuv_uint8", f"tf.image.rgb_to_yuv({U3})", "ge"),
    ("image_rgb_to_hsv", f"tf.image.rgb_to_hsv({HUES})", "ge"),
    ("image_rgb_to_hsv_4d", f"tf.image.rgb_to_hsv({RGB4})", "e"),
    ("image_rgb_to_hsv_double", f"tf.image.rgb_to_hsv(tf.cast({HUES}, tf.float64))", "ge"),
    ("image_rgb_to_hsv_half", f"tf.image.rgb_to_hsv(tf.cast({HUES}, tf.float16))", "e"),
    ("image_rgb_to_hsv_named", f"tf.image.rgb_to_hsv({RGB}, name='hsv')", "g"),
    ("image_rgb_to_hsv_ph", "tf.image.rgb_to_hsv(ph(tf.float32, [None, None, None]))", "g"),
    ("image_rgb_to_hsv_ph_unknown_rank", "tf.image.rgb_to_hsv(ph(tf.float64))", "g"),
    ("image_rgb_to_hsv_bad_channels", "tf.image.rgb_to_hsv(tf.ones([2, 2, 4]))", "ge"),
    ("image_rgb_to_hsv_scalar", "tf.image.rgb_to_hsv(tf.constant(1.0))", "ge"),
    ("image_rgb_to_hsv_uint8", f"tf.image.rgb_to_hsv({U3})", "ge"),
    ("image_hsv_to_rgb", f"tf.image.hsv_to_rgb({HSV})", "ge"),
    ("image_hsv_round_trip", f"tf.image.hsv_to_rgb(tf.image.rgb_to_hsv({HUES}))", "ge"),
    ("image_hsv_to_rgb_double", f"tf.image.hsv_to_rgb(tf.cast({HSV}, tf.float64), name='rgb')", "ge"),
    ("image_hsv_to_rgb_bfloat16", f"tf.image.hsv_to_rgb(tf.cast({HSV}, tf.bfloat16))", "e"),
    ("image_hsv_to_rgb_bad_channels", "tf.image.hsv_to_rgb(tf.ones([3, 2]))", "ge"),
    # ------------------------------------------------------------------ hue and saturation
    ("image_adjust_hue_float", f"tf.image.adjust_hue({HUES}, 0.2)", "ge"),
    ("image_adjust_hue_negative", f"tf.image.adjust_hue({HUES}, -0.7)", "e"),
    ("image_adjust_hue_uint8", f"tf.image.adjust_hue({U3}, -0.3)", "ge"),
    ("image_adjust_hue_4d", f"tf.image.adjust_hue({RGB4}, 0.5, name='hue')", "ge"),
    ("image_adjust_hue_double", f"tf.image.adjust_hue(tf.cast({HUES}, tf.float64), 1.0)", "ge"),
    ("image_adjust_hue_tensor_delta", f"tf.image.adjust_hue({HUES}, tf.constant(0.45))", "ge"),
    ("image_adjust_hue_bad_delta", f"tf.image.adjust_hue({HUES}, 1.5)", "ge"),
    ("image_adjust_hue_bad_channels", "tf.image.adjust_hue(tf.ones([2, 2, 2]), 0.1)", "ge"),
    ("image_adjust_hue_bad_rank", "tf.image.adjust_hue(tf.ones([2, 3]), 0.1)", "ge"),
    ("image_adjust_hue_ph", "tf.image.adjust_hue(ph(tf.uint8, [None, None, 3]), 0.1)", "g"),
    ("image_adjust_saturation_float", f"tf.image.adjust_saturation({HUES}, 0.5)", "ge"),
    ("image_adjust_saturation_high", f"tf.image.adjust_saturation({RGB4}, 3.0, name='sat')", "ge"),
    ("image_adjust_saturation_uint8", f"tf.image.adjust_saturation({U3}, 2.0)", "ge"),
    ("image_adjust_saturation_uint8_4d", f"tf.image.adjust_saturation({U4}, 0.3)", "e"),
    ("image_adjust_saturation_zero", f"tf.image.adjust_saturation({HUES}, 0.0)", "e"),
    ("image_adjust_saturation_bad_channels", "tf.image.adjust_saturation(tf.ones([1, 2, 2, 1]), 0.5)", "ge"),
    ("image_adjust_saturation_bad_factor", f"tf.image.adjust_saturation({HUES}, [0.5, 2.0])", "ge"),
    # ------------------------------------------------------------------ extract_patches
    ("image_extract_patches_valid", f"tf.image.extract_patches({P12}, [1, 2, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "
     "'VALID')", "ge"),
    ("image_extract_patches_same", f"tf.image.extract_patches({P12}, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "
     "'SAME')", "ge"),
    ("image_extract_patches_rates", f"tf.image.extract_patches({P12}, [1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 3, 1], "
     "'SAME', name='patches')", "ge"),
    ("image_extract_patches_uint8", f"tf.image.extract_patches({U4}, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "
     "'VALID')", "e"),
    ("image_extract_patches_tuple_tensors", f"tf.image.extract_patches({P12}, (1, tf.constant(2), 2, 1), "
     "[1, 3, 3, 1], [1, 1, 1, 1], 'SAME')", "ge"),
    ("image_extract_patches_ph", "tf.image.extract_patches(ph(tf.float32, [None, None, 7, 3]), [1, 2, 2, 1], "
     "[1, 1, 1, 1], [1, 1, 1, 1], 'VALID')", "g"),
    ("image_extract_patches_ph_known", "tf.image.extract_patches(ph(tf.float32, [None, 9, 7, None]), [1, 3, 2, 1], "
     "[1, 2, 4, 1], [1, 2, 1, 1], 'SAME')", "g"),
    ("image_extract_patches_too_big", f"tf.image.extract_patches({P12}, [1, 6, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "
     "'VALID')", "ge"),
    ("image_extract_patches_bad_rank", "tf.image.extract_patches(tf.ones([4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "
     "[1, 1, 1, 1], 'VALID')", "ge"),
    ("image_extract_patches_short_sizes", f"tf.image.extract_patches({P12}, [1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "
     "'VALID')", "ge"),
    ("image_extract_patches_batch_stride", f"tf.image.extract_patches({P12}, [1, 2, 2, 1], [2, 1, 1, 1], "
     "[1, 1, 1, 1], 'VALID')", "e"),
    ("image_extract_patches_zero_size", f"tf.image.extract_patches({P12}, [1, 0, 2, 1], [1, 1, 1, 1], "
     "[1, 1, 1, 1], 'VALID')", "e"),
    ("image_extract_patches_bad_padding", f"tf.image.extract_patches({P12}, [1, 2, 2, 1], [1, 1, 1, 1], "
     "[1, 1, 1, 1], 'FULL')", "ge"),
    # ------------------------------------------------------------------ gradients, total variation, psnr
    ("image_image_gradients", f"tf.image.image_gradients({F4})", "ge"),
    ("image_image_gradients_int", f"tf.image.image_gradients({U4})", "e"),
    ("image_image_gradients_3d", f"tf.image.image_gradients({F3})", "ge"),
    ("image_total_variation_3d", f"tf.image.total_variation({F3})", "ge"),
    ("image_total_variation_4d", f"tf.image.total_variation({RGB4}, name='tv')", "ge"),
    ("image_total_variation_int", "tf.image.total_variation(tf.constant([[[1], [5]], [[2], [0]]]))", "e"),
    ("image_total_variation_bad_rank", "tf.image.total_variation(tf.ones([2, 2]))", "ge"),
    ("image_psnr_float", f"tf.image.psnr({RGB4}, tf.image.flip_left_right({RGB4}), max_val=1.0)", "ge"),
    ("image_psnr_uint8", f"tf.image.psnr({U4}, tf.image.flip_up_down({U4}), 255)", "ge"),
    ("image_psnr_3d", f"tf.image.psnr({RGB}, {RGB} * 0.5, 1.0, name='p')", "e"),
    ("image_psnr_bad_shapes", f"tf.image.psnr({RGB}, tf.ones([2, 3, 3]), 1.0)", "ge"),
    # ------------------------------------------------------------------ seeded random augmentation
    ("image_random_flip_left_right_3d", f"tf.random.set_seed(3)\ntf.image.random_flip_left_right({F3}, seed=5)",
     "ge"),
    ("image_random_flip_left_right_4d",
     "tf.random.set_seed(1)\ntf.image.random_flip_left_right(tf.reshape(tf.range(96.0), [8, 3, 4, 1]), seed=7)",
     "ge"),
    ("image_random_flip_up_down_3d", f"tf.random.set_seed(2)\ntf.image.random_flip_up_down({U3}, seed=11)", "ge"),
    ("image_random_flip_up_down_4d",
     "tf.random.set_seed(4)\ntf.image.random_flip_up_down(tf.reshape(tf.range(48, dtype=tf.int32), [8, 3, 2, 1]),"
     " seed=1)", "e"),
    ("image_random_flip_op_seed_only", f"tf.image.random_flip_left_right({F4}, seed=9)", "ge"),
    ("image_random_flip_bad_rank", "tf.image.random_flip_left_right(tf.ones([2]))", "ge"),
    ("image_random_brightness", f"tf.random.set_seed(5)\ntf.image.random_brightness({RGB}, 0.3, seed=2)", "ge"),
    ("image_random_brightness_uint8", f"tf.random.set_seed(6)\ntf.image.random_brightness({U3}, 0.5, seed=3)", "e"),
    ("image_random_brightness_negative", f"tf.image.random_brightness({RGB}, -0.1)", "ge"),
    ("image_random_contrast", f"tf.random.set_seed(7)\ntf.image.random_contrast({RGB4}, 0.2, 1.8, seed=4)", "ge"),
    ("image_random_contrast_uint8", f"tf.random.set_seed(8)\ntf.image.random_contrast({U3}, 0.5, 1.5, seed=1)", "e"),
    ("image_random_contrast_bad_range", f"tf.image.random_contrast({RGB}, 1.0, 0.5)", "ge"),
    ("image_random_contrast_negative_lower", f"tf.image.random_contrast({RGB}, -1.0, 0.5)", "e"),
    ("image_random_hue", f"tf.random.set_seed(11)\ntf.image.random_hue({HUES}, 0.4, seed=2)", "ge"),
    ("image_random_hue_uint8", f"tf.random.set_seed(12)\ntf.image.random_hue({U3}, 0.2, seed=5)", "e"),
    ("image_random_hue_too_big", f"tf.image.random_hue({HUES}, 0.6)", "ge"),
    ("image_random_hue_negative", f"tf.image.random_hue({HUES}, -0.1)", "e"),
    ("image_random_saturation", f"tf.random.set_seed(13)\ntf.image.random_saturation({RGB4}, 0.5, 1.5, seed=3)",
     "ge"),
    ("image_random_saturation_uint8", f"tf.random.set_seed(14)\ntf.image.random_saturation({U3}, 0.1, 3.0, seed=8)",
     "e"),
    ("image_random_saturation_bad_range", f"tf.image.random_saturation({HUES}, 2.0, 1.0)", "ge"),
    ("image_random_saturation_negative_lower", f"tf.image.random_saturation({HUES}, -0.5, 1.0)", "e"),
    ("image_random_crop", f"tf.random.set_seed(9)\ntf.image.random_crop({F3}, [2, 2, 2], seed=3)", "ge"),
    ("image_random_crop_4d", f"tf.random.set_seed(10)\ntf.image.random_crop({F4}, [1, 2, 3, 2], seed=6)", "e"),
    ("image_random_crop_ph", "tf.random.set_seed(10)\ntf.image.random_crop(ph(tf.float32, [None, None, 3]), "
     "[5, 5, 3], seed=6)", "g"),
    ("image_random_crop_too_big", f"tf.random.set_seed(1)\ntf.image.random_crop({F3}, [4, 2, 2], seed=1)", "e"),
    # ------------------------------------------------------------------ stateless random augmentation
    ("image_stateless_flip_left_right_3d", f"tf.image.stateless_random_flip_left_right({F3}, seed=(2, 3))", "ge"),
    ("image_stateless_flip_left_right_3d_seed2", f"tf.image.stateless_random_flip_left_right({U3}, [7, 1])", "e"),
    ("image_stateless_flip_left_right_3d_seed3", f"tf.image.stateless_random_flip_left_right({F3}, (0, 0))", "e"),
    ("image_stateless_flip_left_right_4d",
     "tf.image.stateless_random_flip_left_right(tf.reshape(tf.range(96.0), [8, 3, 4, 1]), seed=[1, 2])", "ge"),
    ("image_stateless_flip_left_right_int64_seed",
     "tf.image.stateless_random_flip_left_right(tf.reshape(tf.range(96.0), [8, 3, 4, 1]), "
     "tf.constant([5, 9], tf.int64))", "e"),
    ("image_stateless_flip_up_down_3d", f"tf.image.stateless_random_flip_up_down({U3}, seed=(2, 3))", "ge"),
    ("image_stateless_flip_up_down_3d_seed2", f"tf.image.stateless_random_flip_up_down({F3}, (4, 4))", "e"),
    ("image_stateless_flip_up_down_4d",
     "tf.image.stateless_random_flip_up_down(tf.reshape(tf.range(48, dtype=tf.int32), [8, 3, 2, 1]), (3, 8))",
     "ge"),
    ("image_stateless_flip_up_down_4d_uint8", f"tf.image.stateless_random_flip_up_down({U4}, (11, 12))", "e"),
    ("image_stateless_flip_ph", "tf.image.stateless_random_flip_up_down(ph(tf.float32, [None, None, 3]), (1, 2))",
     "g"),
    ("image_stateless_flip_bad_rank", "tf.image.stateless_random_flip_left_right(tf.ones([2]), (1, 2))", "ge"),
    ("image_stateless_flip_bad_seed_shape", f"tf.image.stateless_random_flip_left_right({F3}, (1, 2, 3))", "ge"),
    ("image_stateless_flip_float_seed", f"tf.image.stateless_random_flip_up_down({F3}, (1.0, 2.0))", "ge"),
    ("image_stateless_brightness", f"tf.image.stateless_random_brightness({RGB}, 0.2, seed=(1, 2))", "ge"),
    ("image_stateless_brightness_seed2", f"tf.image.stateless_random_brightness({F4}, 0.5, (9, 4))", "e"),
    ("image_stateless_brightness_uint8", f"tf.image.stateless_random_brightness({U3}, 0.5, (3, 4))", "e"),
    ("image_stateless_brightness_negative", f"tf.image.stateless_random_brightness({RGB}, -0.1, (1, 2))", "ge"),
    ("image_stateless_contrast", f"tf.image.stateless_random_contrast({RGB4}, 0.2, 1.8, seed=(1, 2))", "ge"),
    ("image_stateless_contrast_seed2", f"tf.image.stateless_random_contrast({F3}, 0.5, 3.0, (6, 5))", "e"),
    ("image_stateless_contrast_uint8", f"tf.image.stateless_random_contrast({U3}, 0.5, 1.5, (8, 1))", "e"),
    ("image_stateless_contrast_bad_range", f"tf.image.stateless_random_contrast({RGB}, 1.0, 0.5, (1, 2))", "ge"),
    ("image_stateless_contrast_negative_lower",
     f"tf.image.stateless_random_contrast({RGB}, -1.0, 0.5, (1, 2))", "e"),
    ("image_stateless_hue", f"tf.image.stateless_random_hue({HUES}, 0.4, seed=(1, 2))", "ge"),
    ("image_stateless_hue_seed2", f"tf.image.stateless_random_hue({RGB4}, 0.5, (12, 34))", "e"),
    ("image_stateless_hue_uint8", f"tf.image.stateless_random_hue({U3}, 0.2, (5, 5))", "e"),
    ("image_stateless_hue_too_big", f"tf.image.stateless_random_hue({HUES}, 0.6, (1, 2))", "ge"),
    ("image_stateless_hue_negative", f"tf.image.stateless_random_hue({HUES}, -0.1, (1, 2))", "e"),
    ("image_stateless_saturation", f"tf.image.stateless_random_saturation({RGB4}, 0.5, 1.5, seed=(1, 2))", "ge"),
    ("image_stateless_saturation_seed2", f"tf.image.stateless_random_saturation({HUES}, 0.1, 4.0, (3, 1))", "e"),
    ("image_stateless_saturation_uint8", f"tf.image.stateless_random_saturation({U3}, 0.1, 3.0, (8, 8))", "e"),
    ("image_stateless_saturation_bad_range",
     f"tf.image.stateless_random_saturation({HUES}, 2.0, 1.0, (1, 2))", "ge"),
    ("image_stateless_saturation_negative_lower",
     f"tf.image.stateless_random_saturation({HUES}, -0.5, 1.0, (1, 2))", "e"),
    ("image_stateless_saturation_no_seed", f"tf.image.stateless_random_saturation({HUES}, 0.5, 1.0)", "ge"),
    ("image_stateless_crop", f"tf.image.stateless_random_crop({F3}, [2, 2, 2], seed=(1, 2))", "ge"),
    ("image_stateless_crop_seed2", f"tf.image.stateless_random_crop({F3}, [1, 3, 1], (5, 7))", "e"),
    ("image_stateless_crop_4d", f"tf.image.stateless_random_crop({F4}, [1, 2, 3, 2], (6, 6), name='sc')", "ge"),
    ("image_stateless_crop_uint8", f"tf.image.stateless_random_crop({U4}, [2, 2, 2, 1], (0, 3))", "e"),
    ("image_stateless_crop_full", f"tf.image.stateless_random_crop({F3}, [3, 4, 2], (1, 1))", "e"),
    ("image_stateless_crop_ph",
     "tf.image.stateless_random_crop(ph(tf.float32, [None, None, 3]), [5, 5, 3], tf.constant([4, 2], tf.int64))",
     "g"),
    ("image_stateless_crop_too_big", f"tf.image.stateless_random_crop({F3}, [4, 2, 2], (1, 2))", "e"),
    ("image_stateless_crop_bad_seed_shape", f"tf.image.stateless_random_crop({F3}, [2, 2, 2], [1])", "ge"),
]  # fmt: skip


OPS = ["AdjustHue", "AdjustSaturation", "ExtractImagePatches", "HSVToRGB", "RGBToHSV"]


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the ops added here."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.OUT = OUT / "ops"
    breadth.OUT.mkdir(parents=True, exist_ok=True)
    breadth.GENERATOR = "tools/make_golden_image_ops.py"
    breadth.OPS, breadth.KERNEL_ONLY = list(OPS), []
    breadth.SHAPE_CASES.clear()
    breadth.KERNEL_CASES.clear()
    rng = np.random.default_rng(20260701)

    def colours(shape, dtype=np.float32) -> np.ndarray:
        """Random colours with quarter-step ones mixed in (ties between channels, greys, black, white)."""
        x = rng.random(shape)
        ties = rng.integers(0, 5, shape) / 4
        return np.where(rng.random(shape[:-1] + (1,)) < 0.4, ties, x).astype(dtype)

    for op in ("RGBToHSV", "HSVToRGB"):
        for dtype in (np.float32, np.float64, np.float16):
            kernel_case(op, colours((4, 5, 3), dtype))
        kernel_case(op, colours((2, 3, 6, 3)) * np.float32(1.5) - np.float32(0.2))
        kernel_case(op, colours((3,)))
        kernel_case(op, np.zeros((0, 3), np.float32))
        kernel_case(op, np.ones((2, 4), np.float32))
        kernel_case(op, np.float32(1.0))
        shape_case(op, P([2, U, 3]))
        shape_case(op, P([U, U], "float64"))
        shape_case(op, P(None))
        shape_case(op, P([4, 2]))
        shape_case(op, P([]))
    for delta in (0.0, 0.15, -0.4, 0.5, 1.0, -1.0, 0.999):
        kernel_case("AdjustHue", colours((3, 7, 3)), np.float32(delta))
    kernel_case("AdjustHue", colours((2, 4, 5, 3)) * np.float32(255), np.float32(0.3))
    for scale in (0.0, 0.4, 1.0, 2.5, 10.0):
        kernel_case("AdjustSaturation", colours((3, 7, 3)), np.float32(scale))
    kernel_case("AdjustSaturation", colours((2, 4, 5, 3)), np.float32(1.3))
    for op in ("AdjustHue", "AdjustSaturation"):
        kernel_case(op, np.zeros((0, 2, 3), np.float32), np.float32(0.5))
        kernel_case(op, colours((2, 3)), np.float32(0.5))
        kernel_case(op, np.ones((2, 2, 2), np.float32), np.float32(0.5))
        kernel_case(op, colours((2, 2, 3)), np.array([0.5], np.float32))
        shape_case(op, P([2, 5, 7, 3]), C(0.5, "float32"))
        shape_case(op, P([U, U, U]), P([], "float32"))
        shape_case(op, P(None), C(0.5, "float32"))
        shape_case(op, P([2, 3]), C(0.5, "float32"))
    image = np.arange(2 * 7 * 6 * 3, dtype=np.float32).reshape(2, 7, 6, 3)
    for ksizes, strides, rates, padding in (
        ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
        ([1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 2, 1], "VALID"),
        ([1, 3, 3, 1], [1, 3, 2, 1], [1, 2, 1, 1], "SAME"),
        ([1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([1, 4, 2, 1], [1, 5, 5, 1], [1, 2, 3, 1], "SAME"),
        ([1, 7, 6, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([1, 8, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([1, 2, 2, 1], [1, 0, 1, 1], [1, 1, 1, 1], "VALID"),
    ):
        kernel_case("ExtractImagePatches", image, ksizes=ksizes, strides=strides, rates=rates, padding=padding)
    for dtype in (np.float64, np.int32, np.uint8, np.int64, np.float16, np.bool_, np.complex64):
        kernel_case("ExtractImagePatches", (image % 5).astype(dtype), ksizes=[1, 2, 3, 1], strides=[1, 2, 2, 1],
                    rates=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("ExtractImagePatches", np.zeros((0, 4, 4, 2), np.float32), ksizes=[1, 2, 2, 1],
                strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")  # fmt: skip
    kernel_case("ExtractImagePatches", np.ones((4, 4, 2), np.float32), ksizes=[1, 2, 2, 1],
                strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")  # fmt: skip
    for shape, ksizes, strides, rates, padding in (
        ([2, 7, 6, 3], [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
        ([U, 9, 7, U], [1, 3, 2, 1], [1, 2, 4, 1], [1, 2, 1, 1], "VALID"),
        ([U, U, 7, 3], [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        (None, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([2, 4, 4, 1], [1, 6, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([2, 4, 4], [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([2, 4, 4, 1], [1, 2, 2, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([2, 4, 4, 1], [1, 2, 2, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
        ([2, 4, 4, 1], [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1], "SAME"),
    ):
        shape_case("ExtractImagePatches", P(shape), ksizes=ksizes, strides=strides, rates=rates, padding=padding)
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_image_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
