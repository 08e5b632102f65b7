"""Gradient cases: image (format: tests/api/gradient_cases/__init__.py).

The resize ops in their three sampling modes (legacy, ``align_corners``, ``half_pixel_centers``),
up and down. Bilinear and bicubic output float32 whatever the image type, so their float64 cases
skip the central differences (float32 outputs cannot resolve them); nearest neighbor keeps the type.
``placeholder_with_default`` hides the static image shape (nearest neighbor's dynamic size path).
RGBToHSV's gradient is TF's piecewise formula; ExtractImagePatches' sums the patches back.
"""

F64, F32 = "float64", "float32"

_RAW = "tf.raw_ops.{op}(images=x, size={size!r}, align_corners={align}, half_pixel_centers={half})"
_MODES = {"legacy": (False, False), "align_corners": (True, False), "half_pixel": (False, True)}

CASES: dict[str, dict] = {}
for _op, _short in (("ResizeBilinear", "bilinear"), ("ResizeNearestNeighbor", "nearest"),
                    ("ResizeBicubic", "bicubic")):  # fmt: skip
    for _mode, (_align, _half) in _MODES.items():
        for _direction, _shape, _size in (("up", [2, 3, 4, 2], [5, 7]), ("down", [1, 6, 5, 2], [4, 3])):
            _call = _RAW.format(op=_op, size=_size, align=_align, half=_half)
            CASES[f"{_short}_{_mode}_{_direction}"] = {
                "fn": f"lambda tf, x: {_call}",
                "inputs": [(F64, _shape)],
                "numeric": _short == "nearest",
            }
    CASES[f"{_short}_f32"] = {
        "fn": f"lambda tf, x: {_RAW.format(op=_op, size=[5, 3], align=False, half=True)} * 2.0",
        "inputs": [(F32, [2, 4, 4, 3])],
    }
CASES.update(
    {
        "resize_bilinear_api": {
            "fn": "lambda tf, x: tf.image.resize(x, [6, 5])",
            "inputs": [(F32, [1, 3, 4, 2])],
        },
        "resize_nearest_api": {
            "fn": "lambda tf, x: tf.image.resize(x, [6, 5], method='nearest')",
            "inputs": [(F64, [1, 3, 4, 2])],
        },
        "resize_bicubic_api_rank3": {
            "fn": "lambda tf, x: tf.image.resize(x, [5, 5], method='bicubic')",
            "inputs": [(F32, [3, 4, 2])],
        },
        "resize_nearest_dynamic_shape": {
            "fn": "lambda tf, x: tf.raw_ops.ResizeNearestNeighbor(images=tf.compat.v1.placeholder_with_default(x, "
            "[None, None, None, 2]), size=[5, 3], half_pixel_centers=True)",
            "inputs": [(F64, [1, 3, 4, 2])],
        },
        "resize_bilinear_chain": {
            "fn": "lambda tf, x: tf.square(tf.raw_ops.ResizeBilinear(images=x * x, size=[4, 4], "
            "half_pixel_centers=True))",
            "inputs": [(F32, [1, 3, 3, 1])],
        },
        # TF's piecewise RGBToHSV gradient (positive channels, no ties at random points)
        "rgb_to_hsv": {"fn": "lambda tf, x: tf.image.rgb_to_hsv(x)", "inputs": [(F64, [2, 3, 3])], "positive": [0]},
        "rgb_to_hsv_f32_chain": {
            "fn": "lambda tf, x: tf.image.rgb_to_hsv(x * x) * 2.0",
            "inputs": [(F32, [2, 4, 3])],
            "positive": [0],
            "numeric": False,
        },
        # ExtractImagePatches: the patch gradients summed back where each value came from (padding dropped)
        "extract_patches_valid": {
            "fn": "lambda tf, x: tf.image.extract_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], 'VALID')",
            "inputs": [(F64, [2, 5, 6, 3])],
        },
        "extract_patches_same_f32": {
            "fn": "lambda tf, x: tf.image.extract_patches(x * x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], 'SAME')",
            "inputs": [(F32, [1, 4, 5, 2])],
            "numeric": False,
        },
        "resize_bicubic_int_image": {
            "fn": "lambda tf, x, y: tf.raw_ops.ResizeBicubic(images=tf.cast(x, tf.int32), size=[4, 4]) * y",
            "inputs": [(F32, [1, 2, 2, 1]), (F32, [1, 4, 4, 1])],
        },
    }
)
