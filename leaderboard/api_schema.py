"""OpenAPI post-processing: document the error responses DRF gives on every API.

drf-spectacular documents success responses only, unless a view says more. But DRF answers
400 (invalid query or body; and on every operation, an undeclared query parameter (core.api.BaseApi), too many
query parameters or a NUL character in the URL, refused by core.middleware), 401/403 (bad credentials, not allowed), 404 (unknown object, or an
unknown `?format=`) and 429 (throttled), with `{"detail": ...}` (400: field -> messages) as JSON,
or as CSV where the client asked for CSV. A client generated from the schema (or schemathesis)
must find them documented. Responses a view documents itself are left as they are.
"""
from leaderboard.core.middleware import MAX_QUERY_PARAMETERS, MAX_REPEATS
from leaderboard.core.parsers import MAX_JSON_DEPTH

DETAIL = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
VALIDATION = {"type": "object", "description": "field name -> list of messages (or {'detail': message})",
              "additionalProperties": {}}
DESCRIPTIONS = {"400": "Invalid query or request body: a parameter's value (field -> messages), or `{code, detail, "
                       "hint}` for a query parameter the operation does not declare (UNKNOWN_PARAMETER), more than "
                       f"{MAX_QUERY_PARAMETERS} query parameters or one name more than {MAX_REPEATS} times "
                       f"(TOO_MANY_PARAMETERS), a JSON body nested more than {MAX_JSON_DEPTH} levels (JSON_TOO_DEEP), "
                       "or a NUL character (%00) in the URL.",
                "401": "Missing or invalid credentials.", "403": "Not allowed.",
                "404": "No such object (named in the path or query), or an unknown `format`.",
                "429": "Throttled: retry after the number of seconds in the Retry-After header."}


def _codes(operation):
    params = operation.get("parameters", [])
    codes = ["400", "429"]  # 400: any URL with a NUL character in it (NulByteMiddleware)
    if operation.get("security"):
        codes += ["401", "403"]
    if any(p["in"] in ("path", "query") for p in params):  # an unknown object named there, or ?format=
        codes.append("404")
    return sorted(codes)


def document_error_responses(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {}).update(
        ErrorDetail=DETAIL, ValidationErrors=VALIDATION)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            success = next((r for code, r in responses.items() if code.startswith("2")), {})
            csv_too = "text/csv" in success.get("content", {})
            for code in _codes(operation):
                if code in responses:
                    if code == "400":  # a view's own 400 body, or DRF's field -> messages from its serializers
                        for media in responses[code].get("content", {}).values():
                            if "schema" in media and "anyOf" not in media["schema"]:
                                media["schema"] = {"anyOf": [media["schema"],
                                                             {"$ref": "#/components/schemas/ValidationErrors"}]}
                    continue
                ref = {"$ref": "#/components/schemas/" + ("ValidationErrors" if code == "400" else "ErrorDetail")}
                content = {"application/json": {"schema": ref}}
                if csv_too:
                    content["text/csv"] = {"schema": {"type": "string"}}
                responses[code] = {"description": DESCRIPTIONS[code], "content": content}
    return result

