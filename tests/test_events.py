"""The accounting events of dp_lib.events: immutable, validated, carrying the neighbouring relation."""

import dataclasses
import math

import numpy as np
import pytest

from dp_lib.events import (NEIGHBOURS, Composed, DpEvent, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent,
                           PoissonSampled, RandomizedResponseEvent, Repeated, ZcdpEvent, check_event, check_label)

GOOD = [EpsilonDeltaEvent(1.0, 1e-6), EpsilonDeltaEvent(0.0), LaplaceEvent(2.0, sensitivity=3.0), GaussianEvent(4.0),
        RandomizedResponseEvent(0.5), ZcdpEvent(0.0), ZcdpEvent(0.25), PoissonSampled(0.01, GaussianEvent(1.1)),
        Composed([LaplaceEvent(1.0), GaussianEvent(2.0)]), Repeated(ZcdpEvent(0.1), 7)]


@pytest.mark.parametrize("event", GOOD, ids=repr)
def test_events_are_frozen_hashable_and_compare_by_value(event):
    assert isinstance(event, DpEvent) and event.neighbours == "add_remove"
    field = dataclasses.fields(event)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, field, 1.0)
    assert hash(event) == hash(dataclasses.replace(event)) and event == dataclasses.replace(event)
    assert eval(repr(event)) == event  # the repr reads like the call that makes it


def test_numbers_are_stored_as_python_floats_and_ints():
    event = LaplaceEvent(np.int64(2), np.float32(0.5))
    assert type(event.scale) is float and type(event.sensitivity) is float and event == LaplaceEvent(2.0, 0.5)
    assert type(Repeated(LaplaceEvent(1.0), np.int64(3)).count) is int
    assert Composed([LaplaceEvent(1.0)]).events == (LaplaceEvent(1.0),)  # a list becomes a tuple (hashable)
    assert LaplaceEvent(4.0, 2.0).epsilon == 0.5 and GaussianEvent(2.0, 2.0).rho == 0.5


@pytest.mark.parametrize("make, field", [
    (lambda v: EpsilonDeltaEvent(v), "epsilon"), (lambda v: EpsilonDeltaEvent(1.0, v), "delta"),
    (lambda v: LaplaceEvent(v), "scale"), (lambda v: LaplaceEvent(1.0, v), "sensitivity"),
    (lambda v: GaussianEvent(v), "sigma"), (lambda v: GaussianEvent(1.0, v), "sensitivity"),
    (lambda v: RandomizedResponseEvent(v), "epsilon"), (lambda v: ZcdpEvent(v), "rho"),
    (lambda v: PoissonSampled(v, GaussianEvent(1.0)), "q"),
])
def test_a_wrong_type_is_a_type_error_and_a_wrong_value_a_value_error_naming_the_field(make, field):
    for bad in ("1", None, True, np.bool_(False), [1.0], 1 + 0j):
        with pytest.raises(TypeError, match=rf"\.{field} must be a real number"):
            make(bad)
    for bad in (math.nan, math.inf, -1.0, 10**400):
        with pytest.raises(ValueError, match=rf"\.{field} must be a finite number"):
            make(bad)


@pytest.mark.parametrize("make, bad", [
    (lambda: EpsilonDeltaEvent(1.0, 1.0), "delta"), (lambda: LaplaceEvent(0.0), "scale"),
    (lambda: GaussianEvent(0.0), "sigma"), (lambda: RandomizedResponseEvent(0.0), "epsilon"),
    (lambda: PoissonSampled(1.5, GaussianEvent(1.0)), "q"),
    (lambda: LaplaceEvent(1e-308, sensitivity=1e308), "sensitivity/scale"),  # ε = Δ/b beyond float64
    (lambda: GaussianEvent(1e-200), "sensitivity/sigma"),  # ρ = Δ²/(2σ²) beyond float64
    (lambda: GaussianEvent(1e200), "sensitivity/sigma"),  # ρ would underflow to 0
    (lambda: Repeated(LaplaceEvent(1.0), 0), "count"), (lambda: Repeated(LaplaceEvent(1.0), 2**53 + 1), "count"),
    (lambda: Composed([]), "events"),
])
def test_out_of_range_values_are_value_errors(make, bad):
    with pytest.raises(ValueError, match=bad.replace("/", ".")):
        make()


def test_composites_check_their_parts():
    for bad in (1.0, "laplace", None, {"scale": 1.0}):
        with pytest.raises(TypeError, match="event must be a DpEvent"):
            PoissonSampled(0.1, bad)
        with pytest.raises(TypeError, match=r"events\[1\] must be a DpEvent"):
            Composed([LaplaceEvent(1.0), bad])
    for bad in (LaplaceEvent(1.0), "ab", None, {LaplaceEvent(1.0)}):
        with pytest.raises(TypeError, match="Composed.events must be a list or tuple"):
            Composed(bad)
    for bad in (2.0, True, "3", None):
        with pytest.raises(TypeError, match="Repeated.count must be an integer"):
            Repeated(LaplaceEvent(1.0), bad)


def test_the_neighbouring_relation_is_carried_and_composites_require_agreement():
    assert NEIGHBOURS == ("add_remove", "replace_one")
    replace = LaplaceEvent(1.0, neighbours="replace_one")
    assert Repeated(replace, 3, neighbours="replace_one").event.neighbours == "replace_one"
    with pytest.raises(ValueError, match="all parts must agree"):
        Repeated(replace, 3)  # the composite says add_remove (the default), its part replace_one
    with pytest.raises(ValueError, match=r"events\[1\] is stated for neighbours='replace_one'"):
        Composed([LaplaceEvent(1.0), replace])
    with pytest.raises(ValueError, match="all parts must agree"):
        PoissonSampled(0.1, GaussianEvent(1.0), neighbours="replace_one")
    with pytest.raises(ValueError, match="neighbours must be one of"):
        ZcdpEvent(0.1, neighbours="add-remove")
    with pytest.raises(TypeError, match="neighbours must be a string"):
        ZcdpEvent(0.1, neighbours=None)


def test_check_event_and_check_label():
    assert check_event(GOOD[0]) is GOOD[0] and check_event(GOOD[0], "add_remove") is GOOD[0]
    with pytest.raises(TypeError, match=r"removed in dp_lib 0\.3"):
        check_event("gaussian")
    with pytest.raises(ValueError, match="one neighbouring relation"):
        check_event(GOOD[0], "replace_one")
    assert check_label(None, 2) == "charge 2" and check_label("x", 2) == "x"
    with pytest.raises(TypeError, match="label"):
        check_label(3, 1)


def test_repr_is_the_call_and_names_the_relation_only_when_it_is_not_the_default():
    assert repr(LaplaceEvent(2.0)) == "LaplaceEvent(scale=2.0, sensitivity=1.0)"
    replace = Repeated(ZcdpEvent(0.5, neighbours="replace_one"), 3, neighbours="replace_one")
    assert repr(replace) == ("Repeated(event=ZcdpEvent(rho=0.5, neighbours='replace_one'), count=3, "
                             "neighbours='replace_one')")
    assert eval(repr(replace)) == replace
