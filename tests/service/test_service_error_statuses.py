"""The gRPC face gives every kind of error the runs raise a status of its own (one table)."""

from __future__ import annotations

from runtime.service.api.rich_errors import STATUS_OF_RUN_ERROR
from runtime.service.runs.errors import RunError, run_error_kinds


def test_every_kind_of_run_error_has_its_own_status() -> None:
    kinds = set(run_error_kinds().values()) - {RunError}
    assert kinds == set(STATUS_OF_RUN_ERROR), sorted(k.__name__ for k in kinds ^ set(STATUS_OF_RUN_ERROR))
