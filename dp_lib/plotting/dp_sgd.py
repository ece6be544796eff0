"""The DP-SGD figure of chapters/11_private_learning.ipynb: DP-SGD against full-batch noisy GD, and ε per step."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy

from ..dp_sgd import minibatch_dp_sgd
from ..learning import accuracy, adult_features, gradient_descent, noisy_gradient_descent
from ..random import make_rng
from .live import LivePlot
from .style import OKABE_ITO, is_finite_number, new_figure

__all__ = ["plot_dp_sgd", "DpSgdPlot"]

DELTA = 1e-5
EPOCHS = 2  # DP-SGD passes over the data in the figure
CLIP, LR_SGD, LR_GD, K_GD = 1.5, 2.0, 4.0, 20


@lru_cache(maxsize=1)
def _data() -> tuple:
    data = adult_features()
    baseline = accuracy(gradient_descent(data.X_train, data.y_train, 100)[0], data.X_test, data.y_test)
    return data, baseline


@lru_cache(maxsize=16)
def _full_batch(epsilon: float) -> tuple[np.ndarray, float]:
    """Test accuracy after each of K_GD full-batch noisy GD iterations (public n, seed 2024)."""
    data, _ = _data()
    n = len(data.y_train)
    _, history = noisy_gradient_descent(data.X_train, data.y_train, epsilon, DELTA, K_GD, CLIP,
                                        rng=make_rng(2024), learning_rate=LR_GD, public_n=n)
    thetas = history.filter(regex=r"^theta_").to_numpy()
    return accuracy(thetas, data.X_test, data.y_test), float(history["sigma"].iloc[-1]) / CLIP


@lru_cache(maxsize=64)
def _dp_sgd_run(epsilon: float, q: float, seed: int) -> tuple[int, np.ndarray, np.ndarray, float]:
    """DP-SGD of the figure of chapters/11_private_learning.ipynb at one setting: (steps, test accuracy per step, ε spent per step, z).

    Cached (a slider revisits settings, and ``DpSgdPlot`` is built at the defaults first):
    the same call of ``minibatch_dp_sgd`` with ``make_rng(seed)`` gives the same numbers.
    """
    data, _ = _data()
    n, steps = len(data.y_train), max(1, round(EPOCHS / q))
    _, history = minibatch_dp_sgd(data.X_train, data.y_train, epsilon, DELTA, steps, CLIP, q=q, public_n=n,
                                  rng=make_rng(seed), learning_rate=LR_SGD)
    sgd_acc = accuracy(history.filter(regex=r"^theta_").to_numpy(), data.X_test, data.y_test)
    spent = history["epsilon_spent"].to_numpy()
    for array in (sgd_acc, spent):
        array.flags.writeable = False
    return steps, sgd_acc, spent, float(history["sigma"].iloc[-1])


class DpSgdPlot(LivePlot):
    """The DP-SGD slider figure of chapters/11_private_learning.ipynb (``plot_dp_sgd``), built once and updated per move.

    Left: test accuracy against epochs on fixed axes (0–2 epochs, accuracy 0.6–0.86).
    Right: ε spent after each step; its y-range is (0, 1.1 ε) as before, so each ε
    of the slider is one view. Runs are cached per (ε, q, seed) and the full-batch
    runs per ε; a first visit still trains and calibrates σ (see ``_dp_sgd_run``).

    Used in: chapters/11_private_learning.ipynb, through ``plot_dp_sgd``
    """

    def build(self) -> None:
        _, baseline = _data()
        self.fig, (left, right) = new_figure(1, 2)
        self.axes = (left, right)
        (self.sgd,) = left.plot([0, EPOCHS], [0, 0], color=OKABE_ITO["vermillion"], label=" ")
        self.gd_x = np.arange(K_GD + 1) * EPOCHS / K_GD
        (self.gd,) = left.plot(self.gd_x, np.zeros(self.gd_x.shape), color=OKABE_ITO["blue"], marker=".",
                               label=" ")
        left.axhline(baseline, color=OKABE_ITO["black"], lw=1, ls="--", label="non-private")
        left.set_title(" ", y=1.0)  # y given: no title-placement pass (it measures all tick labels)
        left.set(xlabel=f"epochs (full-batch: {K_GD} iterations)", ylabel="test accuracy",
                 ylim=(0.6, 0.86), xlim=(0, EPOCHS))
        legend = left.legend(loc="lower right", fontsize=8)
        (self.spent,) = right.plot([0, EPOCHS], [0, 0], color=OKABE_ITO["vermillion"])
        self.target = right.axhline(1.0, color=OKABE_ITO["black"], lw=1, ls=":")
        right.set_title(" ", y=1.0)
        right.set(xlabel="epochs", ylabel="ε spent (δ = 1e-5)", xlim=(0, EPOCHS))
        # 1, 2, 5 steps (no 2.5: no "0.025" labels at small ε) and the y-label at a fixed distance, room for
        # 4-character tick labels ("0.10"): the layout is made once, at the defaults' "0.2"
        right.yaxis.set_major_locator(MaxNLocator("auto", steps=[1, 2, 5, 10]))
        right.yaxis.set_label_coords(0, 0.5, transform=offset_copy(right.transAxes, fig=self.fig, x=-36,
                                                                   units="points"))
        self.legend_texts = legend.get_texts()[:2]
        self.changing = [self.sgd, self.gd, left.title, *self.legend_texts, self.spent, self.target, right.title]

    def update(self, epsilon: float = 1.0, q: float = 0.01, seed: int = 2024) -> float:
        if not (is_finite_number(epsilon) and 0.05 <= epsilon <= 100):
            raise ValueError(f"epsilon (ε) must be a number in [0.05, 100] (got {epsilon!r})")
        if not (is_finite_number(q) and 0.001 <= q <= 1):
            raise ValueError(f"q must be a sampling rate in [0.001, 1] (got {q!r})")
        steps, sgd_acc, spent, sigma = _dp_sgd_run(epsilon, q, seed)
        gd_acc, gd_sigma = _full_batch(float(epsilon))
        left, right = self.axes
        epochs = np.arange(steps + 1) * EPOCHS / steps
        self.sgd.set_data(epochs, sgd_acc)
        self.gd.set_ydata(gd_acc)
        labels = (f"DP-SGD, q = {q:g}, z = {sigma:.2f}", f"full-batch noisy GD, z = σ/C = {gd_sigma:.2f}")  # z: noise multiplier
        self.relabel((self.sgd, self.gd), self.legend_texts, labels)
        left.title.set_text(f"ε = {epsilon:g}, δ = 1e-5")
        self.spent.set_data(epochs, spent)
        self.target.set_ydata([epsilon, epsilon])
        right.title.set_text(f"RDP accountant: ε after each of T = {steps:,} steps")
        top = 1.1 * epsilon  # the view: one per ε
        right.set_ylim(0, top)
        return top


def plot_dp_sgd(epsilon: float = 1.0, q: float = 0.01, seed: int = 2024) -> Figure:
    """Two panels: DP-SGD against full-batch noisy GD at the same (ε, δ = 1e-5) on the Adult data, and ε per step.

    Left: test accuracy against epochs (passes over the data) for DP-SGD with Poisson
    rate q for 2 epochs (T = 2/q steps, the noise multiplier z = σ/C from the RDP accountant) and for full-batch noisy
    GD (20 iterations, sequential composition), with the non-private model for reference.
    Right: ε spent by DP-SGD after each step, as the RDP accountant reports it.
    Built by ``DpSgdPlot``.

    Defined in: chapters/11_private_learning.ipynb
    """
    return DpSgdPlot().figure(epsilon=epsilon, q=q, seed=seed)


plot_dp_sgd.live = DpSgdPlot
