"""The suite's hypothesis profiles, registered and loaded here (tests/conftest.py imports this
module before any test module, so every ``@settings`` is made under the loaded profile).

``$WML_HYPOTHESIS`` names the profile: ``ci`` (the default, so ``.ci/run`` and a plain
``python -m pytest`` run it) gives each property test the examples it has always run;
``dev`` gives each a tenth of those (at least one) for a quick loop while developing. A test
states its CI count as ``@settings(max_examples=examples(n))``, or nothing when it runs the
profile's own ``max_examples``; what a test needs for itself (no deadline for a test that
fits models in a warehouse, a suppressed health check) stays in its own ``@settings``.
"""

from __future__ import annotations

import math
import os

from hypothesis import settings

CI = "ci"
DEV = "dev"
PROFILES = {CI: 100, DEV: 10}
"""Each profile's ``max_examples``: CI's is hypothesis' own default."""
VARIABLE = "WML_HYPOTHESIS"
"""The environment variable that names the profile (:data:`CI` when unset)."""


def load() -> str:
    """Register :data:`PROFILES`, load the one ``$WML_HYPOTHESIS`` names (:data:`CI` when
    unset) and return its name; an unknown name is an error that lists the profiles."""
    for profile, count in PROFILES.items():
        settings.register_profile(profile, max_examples=count)
    name = os.environ.get(VARIABLE) or CI
    if name not in PROFILES:
        raise ValueError(f"{VARIABLE}={name!r}: expected one of {sorted(PROFILES)}")
    settings.load_profile(name)
    return name


def examples(ci: int) -> int:
    """The examples of a test that runs ``ci`` of them under the CI profile: the same share of
    the loaded profile's ``max_examples`` (rounded up, at least one)."""
    share = settings.default.max_examples / PROFILES[CI]
    return max(1, math.ceil(ci * share))


load()
