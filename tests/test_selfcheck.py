"""dp_lib.selfcheck (encoded self-checks) and the chapters' check cells against exercises/chNN.py (issue 37)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

from dp_lib.selfcheck import check, decode, encode, evaluate, to_plain
from tools.classroom import checks, specs


def doc(**extra):
    base = {"name": "answer_x", "missing": "set answer_x to the scale", "shape": None,
            "parts": [{"kind": "number", "lo": 3.99, "hi": 4.01, "hint": "the scale is Δ/ε",
                       "mistakes": [{"lo": 0.24, "hi": 0.26, "hint": "that is ε/Δ"}]}]}
    base.update(extra)
    return base


# -- the encoding ------------------------------------------------------------------------------------------------

def test_encode_roundtrip_and_not_readable():
    code = encode(doc())
    assert code.startswith("dpx1:") and decode(code) == doc()
    assert "4.01" not in code and "scale" not in code  # not readable at a glance


@pytest.mark.parametrize("bad, error", [(None, TypeError), (3, TypeError), ("x:abc", ValueError),
                                        ("dpx1:!!!", ValueError), ("dpx1:" + "QUJD", ValueError)])
def test_decode_bad_code(bad, error):
    with pytest.raises(error, match="code"):
        decode(bad)


def test_decode_no_parts_and_encode_bad_doc():
    import base64
    import zlib

    with pytest.raises(ValueError, match="no parts"):
        decode("dpx1:" + base64.b64encode(zlib.compress(b"[1, 2]")).decode())
    with pytest.raises(TypeError, match="doc"):
        encode([1])
    with pytest.raises(ValueError):
        encode({"parts": [{"lo": float("nan")}]})  # no NaN in a document


def test_check_with_bad_code_names_the_parameter():
    with pytest.raises(TypeError, match="code"):
        check(4.0, None)
    with pytest.raises(ValueError, match="code"):
        check(4.0, "assert x == 4")


# -- kinds, shapes, conditions, order ------------------------------------------------------------------------

def test_number_kind_right_rounding_mistake_wrong():
    code = encode(doc())
    assert check(4.0, code) == "Correct!" and check(4.004, code) == "Correct!"
    assert check(np.float32(4.0), code) == "Correct!" and check(np.array(4.0), code) == "Correct!"
    with pytest.raises(AssertionError, match="that is ε/Δ"):
        check(0.25, code)
    with pytest.raises(AssertionError, match="the scale is Δ/ε"):
        check(5.0, code)
    for bad in (True, "4.0", float("nan"), float("inf"), [4.0]):
        with pytest.raises(AssertionError, match="the scale is Δ/ε"):
            check(bad, code)


def test_missing_answer():
    with pytest.raises(AssertionError, match="set answer_x to the scale"):
        check(None, encode(doc()))
    results = evaluate(None, doc(parts=doc()["parts"] * 2))
    assert [r.ok for r in results] == [False, False] and results[1].hint == "set answer_x to the scale"


@pytest.mark.parametrize("kind, right, wrong", [("exact", "laplace", "gauss"), ("bool", True, False),
                                                ("set", ["a", "b"], ["a"]), ("exact", [1, 2], [2, 1])])
def test_exact_bool_set_kinds(kind, right, wrong):
    code = encode(doc(parts=[{"kind": kind, "value": right, "hint": "no", "mistakes": []}]))
    assert check(right, code) == "Correct!"
    with pytest.raises(AssertionError, match="no"):
        check(wrong, code)


def test_set_kind_ignores_order_and_bool_is_not_one():
    code = encode(doc(parts=[{"kind": "set", "value": [1, 2, 3], "hint": "no"}]))
    assert check({3, 1, 2}, code) == "Correct!" and check((2, 3, 1), code) == "Correct!"
    code = encode(doc(parts=[{"kind": "bool", "value": True, "hint": "no"}]))
    with pytest.raises(AssertionError):
        check(1, code)  # 1 is not True for a yes/no answer
    assert check(np.bool_(True), code) == "Correct!"


def test_shapes():
    two = doc(shape=2, shape_hint="a pair (scale, std)",
              parts=[doc()["parts"][0], {"kind": "number", "lo": 5.6, "hi": 5.7, "hint": "std is √2·b"}])
    code = encode(two)
    assert check((4.0, 5.65), code) == "Correct!" and check(np.array([4.0, 5.65]), code) == "Correct!"
    for bad in (4.0, (4.0,), (4.0, 5.65, 1.0), "ab"):
        with pytest.raises(AssertionError, match="a pair"):
            check(bad, code)
    results = evaluate([4.0, 1.0], two)
    assert [r.ok for r in results] == [True, False] and results[1].hint == "std is √2·b"


def test_mistakes_are_tested_before_the_right_range_in_order():
    parts = [{"kind": "number", "lo": 1.0, "hi": 2.0, "hint": "right range",
              "mistakes": [{"lo": 1.4, "hi": 1.6, "hint": "first mistake"},
                           {"lo": 1.5, "hi": 1.7, "hint": "second mistake"},
                           {"value": 9, "hint": "exact wrong value"}]}]
    code = encode(doc(parts=parts))
    with pytest.raises(AssertionError, match="first mistake"):
        check(1.55, code)  # in both mistakes and in the right range: the first mistake wins
    with pytest.raises(AssertionError, match="second mistake"):
        check(1.65, code)
    assert check(1.2, code) == "Correct!"
    with pytest.raises(AssertionError, match="exact wrong value"):
        check(9, encode(doc(parts=[{**parts[0], "lo": 0, "hi": 10}])))


def test_conditions_on_attributes_are_tested_first():
    @dataclasses.dataclass
    class Result:
        epsilon_lb: float
        claimed_epsilon: float

    parts = [{"path": ".epsilon_lb", "kind": "number", "lo": 0.5, "hi": 1.0, "hint": "the bound is between 0.5 and 1"}]
    conditions = [{"part": 0, "path": ".claimed_epsilon", "kind": "number", "lo": 1, "hi": 1,
                   "hint": "audit the mechanism at its claimed ε = 1"}]
    code = encode(doc(parts=parts, checks=conditions))
    assert check(Result(0.7, 1.0), code) == "Correct!"
    with pytest.raises(AssertionError, match="claimed ε = 1"):
        check(Result(0.7, 2.0), code)
    with pytest.raises(AssertionError, match="claimed ε = 1"):
        check(4.0, code)  # no attribute at all: the condition fails first
    with pytest.raises(AssertionError, match="between 0.5 and 1"):
        check({"claimed_epsilon": 1, "epsilon_lb": 3.0}, code)


def test_one_value_with_several_parts_by_path():
    parts = [{"path": ".low", "kind": "number", "lo": 0, "hi": 1, "hint": "low in [0, 1]"},
             {"path": ".high", "kind": "number", "lo": 2, "hi": 3, "hint": "high in [2, 3]"}]
    code = encode(doc(parts=parts))
    assert check({"low": 0.5, "high": 2.5}, code) == "Correct!"
    with pytest.raises(AssertionError, match="high in"):
        check({"low": 0.5, "high": 5}, code)
    assert [r.ok for r in evaluate({"low": 9, "high": 2.5}, doc(parts=parts))] == [False, True]


def test_paths_with_indices():
    parts = [{"path": ".rows[1]", "kind": "exact", "value": "b", "hint": "second row"}]
    assert check({"rows": ["a", "b"]}, encode(doc(parts=parts))) == "Correct!"
    with pytest.raises(AssertionError, match="second row"):
        check({"rows": ["a"]}, encode(doc(parts=parts)))


def test_evaluate_never_raises_on_odd_answers():
    for odd in ([], {}, "x", [[[]]], {"a": None}, -0.0, 10**400):
        assert all(not r.ok for r in evaluate(to_plain(odd), doc()))


def test_an_answer_cannot_fool_the_comparison():
    class Liar:
        def __eq__(self, other):
            return True

        def __float__(self):
            return 4.0

    with pytest.raises(AssertionError):  # compared through its plain form, never its __eq__
        check(Liar(), encode(doc()))
    assert to_plain(Liar()) == {}


# -- to_plain --------------------------------------------------------------------------------------------------

def test_to_plain_numpy_and_python():
    assert to_plain(np.int64(3)) == 3 and type(to_plain(np.int64(3))) is int
    assert type(to_plain(np.float32(0.5))) is float and to_plain(np.bool_(False)) is False
    assert to_plain(np.arange(4).reshape(2, 2)) == [[0, 1], [2, 3]]
    assert to_plain(np.array(2.5)) == 2.5
    assert to_plain((1, (2.0, "a"))) == [1, [2.0, "a"]]
    assert to_plain({2: {1, 3}}) == {"2": [1, 3]}
    assert to_plain(3 + 4j).startswith("(3+4j)")


def test_to_plain_pandas():
    s = pd.Series([1.0, 2.0], index=["a", "b"])
    assert to_plain(s) == {"a": 1.0, "b": 2.0}
    df = pd.DataFrame({"x": [1, 2]})
    assert to_plain(df) == {"x": {"0": 1, "1": 2}}
    assert json.dumps(to_plain(pd.DataFrame({"t": pd.to_datetime(["2020-01-01"])})))


def test_to_plain_dataclass_namedtuple_objects():
    @dataclasses.dataclass
    class R:
        epsilon: float
        values: np.ndarray

    assert to_plain(R(1.0, np.array([1, 2]))) == {"epsilon": 1.0, "values": [1, 2]}
    P = namedtuple("P", "a b")
    assert to_plain(P(1, 2)) == [1, 2]  # a namedtuple is a tuple first

    class Obj:
        def __init__(self):
            self.public, self._private = 1, 2

    assert to_plain(Obj()) == {"public": 1}
    assert isinstance(to_plain(object()), str) and len(to_plain("x" * 10)) == 10
    deep = []
    for _ in range(20):
        deep = [deep]
    assert json.dumps(to_plain(deep))  # depth-capped, still plain


def test_to_plain_huge_array_and_nan():
    big = np.zeros((1000, 1000))
    assert to_plain(big) == {"__array__": "too large", "shape": [1000, 1000]}
    plain = to_plain([float("nan"), np.nan, np.inf])
    assert math.isnan(plain[0]) and math.isnan(plain[1]) and plain[2] == math.inf
    assert len(to_plain(list(range(200_000)))) == 100_000


# -- the chapters' check cells are the specifications' ----------------------------------------------------------

@pytest.mark.parametrize("number", specs.spec_chapters())
def test_chapter_check_cells_match_spec(number):
    findings = checks.run(specs.chapter_path(number))
    assert not findings, "\n".join(f"{f.key}: {f.message}" for f in findings) + (
        f"\nfix with: python -m tools.classroom checks --write {specs.chapter_path(number).relative_to(specs.ROOT)}")


@pytest.mark.parametrize("number", specs.spec_chapters())
def test_spec_default_solution_passes_its_own_check(number):
    for ex in specs.exercises(number):
        if ex.kind == "open":
            continue
        assert check(ex.solve(ex.default), checks.check_source(ex).split('"')[1]) == "Correct!", ex.key
        rng = np.random.default_rng(7)
        for _ in range(1):  # one student's numbers (the end-to-end test grades more)
            p = ex.params(rng)
            assert all(r.ok for r in evaluate(to_plain(ex.solve(p)), ex.check_doc(p))), (ex.key, p)


def test_checks_write_fixes_a_notebook(tmp_path):
    if not specs.spec_chapters():
        pytest.skip("no specification yet")
    number = specs.spec_chapters()[0]
    source = specs.chapter_path(number)
    copy = tmp_path / source.name
    nb = json.loads(source.read_text(encoding="utf-8"))
    ex = next(e for e in specs.exercises(number) if e.kind != "open")
    _, index = checks.find_check_cell(nb["cells"], ex.name)
    nb["cells"][index]["source"] = "assert answer == 4"
    before = {k: v for k, v in nb["cells"][index].items() if k != "source"}
    copy.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert checks.run(copy)  # differs
    assert checks.main([str(copy)]) == 1
    checks.run(copy, write=True)
    assert not checks.run(copy) and checks.main([str(copy)]) == 0
    after = json.loads(copy.read_text(encoding="utf-8"))["cells"][index]
    assert {k: v for k, v in after.items() if k != "source"} == before  # id, tags, metadata kept


def test_same_doc_tolerates_the_last_bit_only():
    a = {"parts": [{"lo": 3.9960000000001, "hi": 4.0, "kind": "number"}]}
    b = {"parts": [{"lo": 3.996, "hi": 4.0, "kind": "number"}]}
    assert checks.same_doc(a, b)
    assert not checks.same_doc(a, {"parts": [{"lo": 3.997, "hi": 4.0, "kind": "number"}]})
    assert not checks.same_doc({"v": True}, {"v": 1}) and not checks.same_doc([1], [1, 2])
