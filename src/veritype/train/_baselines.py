"""What a fitted aggregator is measured against: what a user gains from its types
(``net_right``) and, per source, the trivial baselines (accept everything; verbatim
substring)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from veritype.evaluation.data import Example, is_verbatim
from veritype.evaluation.metrics import Bools, balanced_accuracy


def net_right(verified: Bools, unsupported: Bools, supported: Bools) -> float:
    """What a user gains from the types, the two kinds of claim weighing the same: per kind,
    the share typed right less the share typed wrong. Uncertain is neither: it says "check
    this", which costs a look but misleads no one, while a wrong type cancels a right one."""
    gains = []
    for kind, right, wrong in ((supported, verified, unsupported),
                               (~supported, unsupported, verified)):
        gains.append(float(right[kind].mean() - wrong[kind].mean()))
    return float(np.mean(gains))


def baselines(examples: Sequence[Example], supported: Bools, sources: npt.NDArray[np.str_]
              ) -> dict[str, dict[str, float]]:
    verbatim = np.array([is_verbatim(e) for e in examples])
    return {str(s): {"verbatim_balanced_accuracy": balanced_accuracy(
                         verbatim[sources == s], supported[sources == s]),
                     "accept_all_balanced_accuracy": 0.5,
                     "verbatim_net_right": net_right(
                         verbatim[sources == s], ~verbatim[sources == s],
                         supported[sources == s]),
                     "accept_all_net_right": 0.0,
                     "supported_share": float(supported[sources == s].mean()),
                     "claims": int(np.sum(sources == s))}
            for s in np.unique(sources)}
