"""The API's JSON parser (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]): DRF's, with a bound on nesting depth.

A body of thousands of nested brackets made json raise RecursionError, answered 500; deep documents also cost
every later recursive walk (serializers, logging). No request of this API needs more than a few levels, so a body
nested deeper than MAX_JSON_DEPTH is a 400 JSON_TOO_DEEP, whether json gave up on it or not.
"""
from rest_framework import parsers

from .errors import DomainError

MAX_JSON_DEPTH = 32


def json_depth(value, limit=MAX_JSON_DEPTH) -> int:
    """How deep lists and objects nest in `value` (a scalar: 0, `[]`: 1), counted up to limit + 1 only."""
    deepest, stack = 0, [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack and deepest <= limit:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def too_deep() -> DomainError:
    return DomainError("JSON_TOO_DEEP", f"the JSON body nests lists or objects more than {MAX_JSON_DEPTH} levels "
                       "deep", f"send a flatter document: no request of this API needs more than {MAX_JSON_DEPTH} "
                       "levels", 400)


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:  # json gave up first: deeper than the interpreter's recursion limit
            raise too_deep() from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise too_deep()
        return data
