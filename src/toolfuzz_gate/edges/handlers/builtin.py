"""The `builtin:renderPoster` adapter: the built-in contract's synthetic handler, in process (edge).

The one handler that runs inside the gate's own process: it is the gate's own
code, side-effect free, and running it in process is what lets the embedded
default run anywhere in a fraction of a second.
"""

from __future__ import annotations

from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.base import ManagedHandler

SPEC = f"builtin:{poster.TOOL_NAME}"


class BuiltinPosterHandler(ManagedHandler):
    def __init__(self) -> None:
        self.service = poster.PosterService()

    def describe(self) -> JSONObject:
        return {"spec": SPEC}

    def call(self, arguments: JSONObject) -> Outcome:
        before = self.service.snapshot()
        try:
            output = self.service.render_poster(**arguments)
        except poster.ToolError as error:
            return Outcome(
                OutcomeKind.REJECTED,
                error_code=error.code,
                error_path=error.path,
                effects_before=before,
                effects_after=self.service.snapshot(),
                effects_observed=True,
            )
        except Exception as error:  # any other exception is the handler crashing
            return Outcome(
                OutcomeKind.CRASH,
                message=bounded_message(f"{type(error).__name__}: {error}"),
                cause=type(error).__name__,
                effects_before=before,
                effects_after=self.service.snapshot(),
                effects_observed=True,
            )
        output_digest, output_bytes = digest_and_size(output)
        return Outcome(
            OutcomeKind.ACCEPTED,
            output_digest=output_digest,
            output_bytes=output_bytes,
            effects_before=before,
            effects_after=self.service.snapshot(),
            effects_observed=True,
        )

    def close(self) -> None:
        pass
