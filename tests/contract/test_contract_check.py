"""scripts/contract-check on planted documents: it fails on a removed field, a narrowed type,
a new required parameter, a field made nullable in an answer, a webhook payload that lost a
field, and a tagged union that answers a new branch or takes one less, unless the major version moved and the changelog names the change; it passes on an
unchanged document and on an addition under a new minor version with its changelog section.

Run: python3 tests/contract/test_contract_check.py (CI runs it from .ci/run; it needs node and
npm, or OPENAPI_DIFF naming an installed openapi-diff).
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "scripts", "contract-check")

PROBLEM = {"$ref": "#/components/schemas/Problem"}

BASE = {
    "openapi": "3.1.0",
    "info": {"title": "planted", "version": "1.0.0", "license": {"name": "MIT", "identifier": "MIT"}},
    "paths": {
        "/api/v1/things": {
            "post": {
                "operationId": "create_thing",
                "parameters": [
                    {"name": "dry_run", "in": "query", "required": False, "schema": {"type": "boolean"}}
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewThing"}}},
                },
                "responses": {
                    "201": {
                        "description": "Made",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
                    },
                    "422": {
                        "description": "Invalid",
                        "content": {"application/problem+json": {"schema": PROBLEM}},
                    },
                },
            }
        },
        "/api/v1/things/{id}": {
            "get": {
                "operationId": "read_thing",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {
                    "200": {
                        "description": "The thing",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
                    }
                },
            }
        },
    },
    "webhooks": {
        "thing_made": {
            "post": {
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/WebhookBodyThingMade"}}
                    }
                },
                "responses": {"2XX": {"description": "Delivered"}},
            }
        }
    },
    "components": {
        "schemas": {
            "NewThing": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "maxLength": 50},
                    "count": {"type": "number", "minimum": 0},
                    "origin": {
                        "oneOf": [
                            {"type": "object", "required": ["kind"],
                             "properties": {"kind": {"type": "string", "enum": ["typed"]}}},
                            {"type": "object", "required": ["kind", "file"],
                             "properties": {"kind": {"type": "string", "enum": ["imported"]},
                                            "file": {"type": "string"}}},
                        ]
                    },
                },
            },
            "Thing": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "integer", "format": "int64"},
                    "name": {"type": "string"},
                    "note": {"type": ["string", "null"]},
                    "history": {"type": "array", "items": {"$ref": "#/components/schemas/StepOut"}},
                },
            },
            # A tagged union (`what` names the branch, `detail` its data) with fields beside it,
            # as utoipa writes a flattened adjacently tagged enum.
            "StepOut": {
                "allOf": [
                    {"$ref": "#/components/schemas/Step"},
                    {"type": "object", "required": ["at"], "properties": {"at": {"type": "string"}}},
                ]
            },
            "Step": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["what", "detail"],
                        "properties": {
                            "what": {"type": "string", "enum": ["made"]},
                            "detail": {"type": "object", "required": ["by"],
                                       "properties": {"by": {"type": "integer"}}},
                        },
                    },
                    {
                        "type": "object",
                        "required": ["what", "detail"],
                        "properties": {
                            "what": {"type": "string", "enum": ["renamed"]},
                            "detail": {"type": "object", "required": ["from", "to"],
                                       "properties": {"from": {"type": "string"},
                                                      "to": {"type": "string"}}},
                        },
                    },
                ]
            },
            "WebhookBodyThingMade": {
                "type": "object",
                "required": ["type", "data"],
                "properties": {
                    "type": {"type": "string", "enum": ["thing_made"]},
                    "data": {
                        "type": "object",
                        "required": ["id", "name"],
                        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                    },
                },
            },
            "Problem": {
                "type": "object",
                "required": ["title", "status"],
                "properties": {"title": {"type": "string"}, "status": {"type": "integer"}},
            },
        }
    },
}

CHANGELOG = """# Changelog

## [Unreleased]

{sections}
## [1.0.0] - 2026-11-26

- The first release.
"""


def schemas(doc):
    return doc["components"]["schemas"]


def removed_field(doc):
    """`Thing.name` is no longer in the answer."""
    del schemas(doc)["Thing"]["properties"]["name"]
    schemas(doc)["Thing"]["required"].remove("name")


def narrowed_type(doc):
    """`NewThing.count` takes integers only (a number was fine)."""
    schemas(doc)["NewThing"]["properties"]["count"]["type"] = "integer"


def new_required_parameter(doc):
    """POST /things needs `?owner=`."""
    doc["paths"]["/api/v1/things"]["post"]["parameters"].append(
        {"name": "owner", "in": "query", "required": True, "schema": {"type": "string"}}
    )


def nullable_answer(doc):
    """`Thing.name` may be null."""
    schemas(doc)["Thing"]["properties"]["name"]["type"] = ["string", "null"]


def webhook_field_removed(doc):
    """A `thing_made` delivery no longer carries `data.name`."""
    data = schemas(doc)["WebhookBodyThingMade"]["properties"]["data"]
    del data["properties"]["name"]
    data["required"].remove("name")


def added_field(doc):
    """`Thing.colour` is new (a client that ignores it is fine)."""
    schemas(doc)["Thing"]["properties"]["colour"] = {"type": "string"}


def steps_spelled_out(doc):
    """`StepOut` written as the union of its branches, each with `at`: the same values."""
    branches = copy.deepcopy(schemas(doc)["Step"]["oneOf"])
    for b in branches:
        b["properties"]["at"] = {"type": "string"}
        b["required"].append("at")
    schemas(doc)["StepOut"] = {"oneOf": branches, "description": "A step, spelled out."}


def step_added(doc):
    """An answer's history may carry a step of a new kind (a client may not know it)."""
    schemas(doc)["Step"]["oneOf"].append({
        "type": "object",
        "required": ["what"],
        "properties": {"what": {"type": "string", "enum": ["archived"]}},
    })


def step_detail_narrowed(doc):
    """A `renamed` step no longer says what the name was."""
    detail = schemas(doc)["Step"]["oneOf"][1]["properties"]["detail"]
    del detail["properties"]["from"]
    detail["required"].remove("from")


def origin_removed(doc):
    """A new thing can no longer be `imported`."""
    schemas(doc)["NewThing"]["properties"]["origin"]["oneOf"].pop()


def origin_added(doc):
    """A new thing may also be `copied` (a request that may carry more)."""
    schemas(doc)["NewThing"]["properties"]["origin"]["oneOf"].append({
        "type": "object",
        "required": ["kind", "of"],
        "properties": {"kind": {"type": "string", "enum": ["copied"]}, "of": {"type": "integer"}},
    })


def description_only(doc):
    schemas(doc)["Thing"]["description"] = "A thing, better described."


class ContractCheck(unittest.TestCase):
    def run_check(self, change=None, version="1.0.0", sections=""):
        with tempfile.TemporaryDirectory() as tmp:
            releases = os.path.join(tmp, "releases")
            os.mkdir(releases)
            with open(os.path.join(releases, "1.0.0.json"), "w") as f:
                json.dump(BASE, f)
            doc = copy.deepcopy(BASE)
            doc["info"]["version"] = version
            if change:
                change(doc)
            document = os.path.join(tmp, "openapi.json")
            with open(document, "w") as f:
                json.dump(doc, f)
            changelog = os.path.join(tmp, "CHANGELOG.md")
            with open(changelog, "w") as f:
                f.write(CHANGELOG.format(sections=sections))
            proc = subprocess.run(
                [sys.executable, CHECK, "--document", document, "--releases", releases,
                 "--changelog", changelog],
                capture_output=True, text=True,
            )
            return proc.returncode, proc.stdout + proc.stderr

    def assert_fails(self, change, *needles, **kw):
        code, out = self.run_check(change, **kw)
        self.assertEqual(code, 1, out)
        for n in needles:
            self.assertIn(n, out)
        return out

    def assert_passes(self, change=None, **kw):
        code, out = self.run_check(change, **kw)
        self.assertEqual(code, 0, out)
        return out

    def test_the_released_document_passes(self):
        self.assert_passes()

    def test_a_description_is_no_change(self):
        self.assert_passes(description_only)

    def test_a_removed_field_is_breaking(self):
        self.assert_fails(removed_field, "BREAKING", "GET /api/v1/things/{id}", "new major version",
                          version="1.1.0", sections="## [1.1.0]\n\n- removed name\n")

    def test_a_narrowed_type_is_breaking(self):
        self.assert_fails(narrowed_type, "BREAKING", "POST /api/v1/things", "new major version",
                          version="1.1.0", sections="## [1.1.0]\n\n- count\n")

    def test_a_new_required_parameter_is_breaking(self):
        self.assert_fails(new_required_parameter, "BREAKING", "POST /api/v1/things",
                          "new major version", version="1.1.0", sections="## [1.1.0]\n\n- owner\n")

    def test_a_field_made_nullable_in_an_answer_is_breaking(self):
        self.assert_fails(nullable_answer, "BREAKING", "GET /api/v1/things/{id}",
                          version="1.1.0", sections="## [1.1.0]\n\n- null\n")

    def test_a_webhook_payload_change_is_breaking(self):
        self.assert_fails(webhook_field_removed, "BREAKING", "webhook thing_made",
                          version="1.1.0", sections="## [1.1.0]\n\n- data\n")

    def test_a_breaking_change_under_a_new_major_needs_the_changelog_to_name_it(self):
        self.assert_fails(removed_field, "does not name `GET /api/v1/things/{id}`",
                          version="2.0.0", sections="## [2.0.0]\n\n### Removed\n\n- a field\n")
        self.assert_fails(removed_field, "no section `## [2.0.0]`", version="2.0.0")
        self.assert_passes(
            removed_field, version="2.0.0",
            sections="## [2.0.0]\n\n### Removed\n\n- `GET /things/{id}`, `POST /things`: `Thing.name` "
                     "(deprecated since 1.0.0)\n",
        )

    def test_an_addition_needs_a_new_version_and_its_section(self):
        self.assert_fails(added_field, "still says 1.0.0")
        self.assert_fails(added_field, "no section `## [1.1.0]`", version="1.1.0")
        self.assert_passes(added_field, version="1.1.0",
                           sections="## [1.1.0]\n\n### Added\n\n- `GET /things/{id}`: `colour`\n")

    def test_a_tagged_union_spelled_out_with_its_fields_is_no_change(self):
        self.assert_passes(steps_spelled_out)

    def test_a_tagged_union_that_answers_a_new_branch_or_less_in_one_is_breaking(self):
        self.assert_fails(step_added, "BREAKING", "GET /api/v1/things/{id}",
                          version="1.1.0", sections="## [1.1.0]\n\n- archived\n")
        self.assert_fails(step_detail_narrowed, "BREAKING", "GET /api/v1/things/{id}",
                          version="1.1.0", sections="## [1.1.0]\n\n- from\n")

    def test_a_tagged_union_in_a_request_breaks_when_it_takes_less_not_more(self):
        self.assert_fails(origin_removed, "BREAKING", "POST /api/v1/things",
                          version="1.1.0", sections="## [1.1.0]\n\n- imported\n")
        self.assert_fails(origin_added, "still says 1.0.0")
        self.assert_passes(origin_added, version="1.1.0",
                           sections="## [1.1.0]\n\n### Added\n\n- `POST /things`: `copied`\n")

    def test_the_view_compares_a_tagged_unions_branches_one_by_one(self):
        # openapi-diff ignores `enum`: a union of seven branches, each with nullable fields,
        # took it more than 15 minutes. The view gives it one closed object of branches.
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import contract_view

        step_out = contract_view.view(copy.deepcopy(BASE))["components"]["schemas"]["StepOut"]
        self.assertEqual(step_out["type"], "object")
        self.assertIs(step_out["additionalProperties"], False)
        self.assertEqual(sorted(step_out["properties"]), ["what=made", "what=renamed"])
        for branch in step_out["properties"].values():
            self.assertIn("at", branch["properties"])
            self.assertIn("at", branch["required"])

    def test_a_version_that_is_not_semver_or_goes_back_fails(self):
        self.assert_fails(None, "not semantic versioning", version="1.0")
        self.assert_fails(None, "older than the release", version="0.9.0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
