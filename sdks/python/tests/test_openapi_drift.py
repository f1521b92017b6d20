"""The SDK's types against the OpenAPI document the service generates (docs/openapi.json)."""

import json
import os

import thumbforge

with open(os.environ["THUMBFORGE_OPENAPI"], encoding="utf8") as file:
    DOCUMENT = json.load(file)


def resolve(schema):
    if "$ref" in schema:
        return resolve(DOCUMENT["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]])
    return schema


def generate_request():
    post = DOCUMENT["paths"]["/v1/generate"]["post"]
    return resolve(post["requestBody"]["content"]["application/json"]["schema"])


def code_enums(node):
    if isinstance(node, dict):
        code = node.get("properties", {}).get("code", {})
        if isinstance(code, dict) and "enum" in code:
            yield code["enum"]
        for value in node.values():
            yield from code_enums(value)
    elif isinstance(node, list):
        for value in node:
            yield from code_enums(value)


def test_generate_request_fields_and_formats():
    schema = generate_request()
    assert sorted(thumbforge.GENERATE_REQUEST_FIELDS) == sorted(schema["properties"])
    assert sorted(thumbforge.FORMATS) == sorted(schema["properties"]["format"]["enum"])


def test_generation_result_fields():
    result = resolve({"$ref": "#/components/schemas/GenerationResultDto"})
    assert sorted(thumbforge.GENERATION_RESULT_FIELDS) == sorted(result["properties"])


def test_paths_headers_and_webhooks():
    for path in thumbforge.API_PATHS:
        assert path in DOCUMENT["paths"]
    names = [p["name"].lower() for p in DOCUMENT["paths"]["/v1/generate"]["post"]["parameters"]]
    assert "idempotency-key" in names
    assert sorted(thumbforge.WEBHOOK_EVENTS) == sorted(DOCUMENT["webhooks"])


def test_error_codes_match_the_server_and_the_document():
    assert sorted(thumbforge.ERROR_CODES) == sorted(json.loads(os.environ["THUMBFORGE_ERROR_CODES"]))
    for codes in code_enums(DOCUMENT):
        assert set(codes) <= set(thumbforge.ERROR_CODES)


def test_the_sdk_under_test_is_the_installed_wheel():
    assert thumbforge.__file__.startswith(os.environ["PYTHONPATH"])
