"""DeviceSpec parsing, printing and merging, checked against TensorFlow 2.21's DeviceSpecV2 answers."""

from __future__ import annotations

import pytest

from modtensor.framework.device_spec import DeviceSpec, canonical_device_name, canonical_name

# (spec, TF's to_string(), (job, replica, task, device_type, device_index)) as TF 2.21 gives them.
PARSE_CASES = [
    ("/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0",
     ("localhost", 0, 0, "CPU", 0)),
    ("/CPU:0", "/device:CPU:0", (None, None, None, "CPU", 0)),
    ("/device:GPU:1", "/device:GPU:1", (None, None, None, "GPU", 1)),
    ("GPU:0", "/device:GPU:0", (None, None, None, "GPU", 0)),
    ("/gpu:0", "/device:GPU:0", (None, None, None, "GPU", 0)),
    ("gpu:1", "/device:GPU:1", (None, None, None, "GPU", 1)),
    ("cpu", "/device:CPU:*", (None, None, None, "CPU", None)),
    ("GPU", "/device:GPU:*", (None, None, None, "GPU", None)),
    ("/job:worker", "/job:worker", ("worker", None, None, None, None)),
    ("/device:GPU:*", "/device:GPU:*", (None, None, None, "GPU", None)),
    ("/cpu:*", "/device:CPU:*", (None, None, None, "CPU", None)),
    ("", "", (None, None, None, None, None)),
    ("/job:w/task:1", "/job:w/task:1", ("w", None, 1, None, None)),
    ("/replica:2", "/replica:2", (None, 2, None, None, None)),
    ("/device:XLA_CPU:0", "/device:XLA_CPU:0", (None, None, None, "XLA_CPU", 0)),
    ("/device:my_dev:0", "/device:my_dev:0", (None, None, None, "my_dev", 0)),
    ("/device:gpu:0", "/device:GPU:0", (None, None, None, "GPU", 0)),
    ("/job:a/job:b", "/job:b", ("b", None, None, None, None)),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "text", "fields"), PARSE_CASES)
def test_from_string_matches_tensorflow(spec, text, fields):
    d = DeviceSpec.from_string(spec)
    assert d.to_string() == text
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == fields
    assert DeviceSpec.from_string(text) == d  # canonical text parses back to the same spec


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/device:CPU:0/device:GPU:0", "Multiple device types are not allowed"),
        ("/GPU:x", "Invalid device index 'x' in device spec '/GPU:x'"),
        ("/foo:0", "Unknown attribute 'foo' is encountered while parsing the device spec: '/foo:0'"),
        ("/task:-1", "Device task must be non-negative, got -1"),
        ("/device::0", "Empty device type"),
    ],
)
def test_malformed_specs_raise_value_error_naming_the_token(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        DeviceSpec.from_string(spec)


def test_non_string_spec_is_a_type_error():
    with pytest.raises(TypeError, match="must be a string"):
        DeviceSpec.from_string(3)  # type: ignore[arg-type]


def test_merge_gives_precedence_to_the_argument():
    outer = DeviceSpec.from_string("/job:a/CPU:0")
    assert outer.make_merged_spec(DeviceSpec.from_string("/GPU:1")).to_string() == "/job:a/device:GPU:1"
    # An unset index ("*") does not override a set one: TF's merge of /GPU:0 then /device:CPU:* -> CPU:0.
    assert DeviceSpec.from_string("/GPU:0").make_merged_spec(DeviceSpec.from_string("/device:CPU:*")).to_string() == (
        "/device:CPU:0"
    )


def test_replace_and_constructor():
    d = DeviceSpec(job="w", replica="1", task=2, device_type="gpu", device_index=3)
    assert d.to_string() == "/job:w/replica:1/task:2/device:GPU:3"
    assert d.replace(job="ps", device_index=None).to_string() == "/job:ps/replica:1/task:2/device:GPU:*"
    with pytest.raises(TypeError, match="unexpected fields: device"):
        d.replace(device="CPU")
    assert (
        repr(DeviceSpec(job="w")) == "<DeviceSpec(job=w, replica=None, task=None, device_type=None, device_index=None)>"
    )


def test_equality_and_hash_follow_the_canonical_text():
    assert DeviceSpec.from_string("/job:a/CPU:0") == DeviceSpec.from_string("/job:a/device:CPU:0")
    assert hash(DeviceSpec.from_string("/gpu:0")) == hash(DeviceSpec.from_string("/device:GPU:0"))
    assert DeviceSpec.from_string("/GPU:0") != DeviceSpec.from_string("/GPU:1")
    assert DeviceSpec.from_string("/GPU:0") != "/device:GPU:0"
    assert DeviceSpec().parse_from_string("/CPU:1") == DeviceSpec(device_type="CPU", device_index=1)


def test_canonical_names():
    assert canonical_name("/gpu:0") == "/device:GPU:0"
    assert canonical_name(None) == ""
    assert canonical_device_name("/GPU:1") == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert canonical_device_name("") == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert canonical_device_name("/job:worker/task:3", default_device_type="GPU") == (
        "/job:worker/replica:0/task:3/device:GPU:0"
    )
