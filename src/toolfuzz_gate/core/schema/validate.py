"""The engine's own accept/reject decision, from the keyword table (pure).

The fuzzer trusts an independent validator (`core.campaign.oracle`) for its verdicts;
this one exists so the compiler's reading of each keyword can be tested against
the official JSON-Schema-Test-Suite, and to reject contradictory enum members.
"""

from __future__ import annotations

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.node import CompiledSchema, Node


def validate_node(node: Node, instance: JSON) -> bool:
    if node.never:
        return False
    for name, argument in node.keywords:
        check = KEYWORDS[name].check
        if check is not None and not check(node, argument, instance, validate_node):
            return False
    return True


def validate(schema: CompiledSchema, instance: JSON) -> bool:
    return validate_node(schema.root, instance)
