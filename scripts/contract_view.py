"""The diff view of a tourney OpenAPI 3.1 document: an OpenAPI 3.0.3 document that the npm
package `openapi-diff` (Atlassian; it reads 3.0 only) can compare, with every part of the
contract it would otherwise not see moved to where it looks (request and response bodies
in `application/json`):

- 3.1 schema keywords written the 3.0 way: `type: [T, "null"]` becomes `anyOf: [T, NULL]`
  where NULL is "none of the other types" (3.0 has no `null` type, and `nullable` is ignored
  by its schema differ, so a field that became nullable would pass unseen); a numeric
  `exclusiveMinimum` becomes `minimum` + `exclusiveMinimum: true`; `const` becomes `enum`;
  a discriminated `oneOf` becomes `anyOf` (the same union; openapi-diff's `oneOf` is far
  slower); keywords 3.0 lacks (`examples`, `propertyNames`, `contentMediaType`, `contentSchema`,
  `$schema`) are dropped.
- Parameters (openapi-diff ignores them): each operation's request body becomes an object
  with one property per parameter (`query limit`, `path id`, `header If-Match`) and the body
  itself (`body`), each required as the parameter is, and no other property. A new required
  parameter, a removed one, one that accepts less, or a body that accepts less all narrow
  what a request may be (breaking); a new optional parameter widens it.
- Problem answers (`application/problem+json`) and the live feed's frames
  (`text/event-stream`, whose `data` is a `LiveEvent`) are read as `application/json`.
- The webhooks (3.1 `webhooks`, one per delivery kind) become `GET /x-webhook/<kind>`
  answering the body a receiver gets: a receiver reads a delivery as a client reads an
  answer, so a payload that may carry what it did not before breaks receivers.
- Tagged unions (`tagged_unions`): an `allOf` of one union and plain objects is written as
  the union with the objects' properties in each branch (the same values), and a union whose
  branches each fix one property to their own single value (`what: opened`) becomes a closed
  object with one optional property per branch (`what=opened`). openapi-diff ignores `enum`,
  so it saw the branches as overlapping objects and took exponential time on them (more
  than 15 minutes on the cases' history of seven steps); as properties they are compared
  one by one, and a branch added to an answer, or removed from a request, still widens or
  narrows what it may be.

Run as a script: contract_view.py IN.json OUT.json
"""

import copy
import json
import sys

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# "Anything but null" in 3.0 terms; its negation is exactly the JSON null.
NULL = {
    "not": {
        "anyOf": [
            {"type": "string"},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "object"},
            {"type": "array"},
        ]
    }
}

DROPPED = ("examples", "propertyNames", "contentMediaType", "contentSchema", "$schema", "$id")

WEBHOOK_PREFIX = "/x-webhook/"


def schema_30(s):
    """A 3.1 schema (and everything under it) written the 3.0 way."""
    if isinstance(s, list):
        return [schema_30(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k in DROPPED:
            continue
        if k in ("properties",) and isinstance(v, dict):
            out[k] = {name: schema_30(x) for name, x in v.items()}
        elif k == "const":
            out["enum"] = [v]
        elif k == "exclusiveMinimum" and not isinstance(v, bool):
            out["minimum"] = v
            out["exclusiveMinimum"] = True
        elif k == "exclusiveMaximum" and not isinstance(v, bool):
            out["maximum"] = v
            out["exclusiveMaximum"] = True
        elif k == "discriminator":
            continue
        elif k == "oneOf":
            # The document's oneOfs are discriminated (each branch's `kind`/`type` differs), so
            # they are the union anyOf says; json-schema-diff's oneOf is exponential in them.
            out["anyOf"] = schema_30(v)
        else:
            out[k] = schema_30(v)
    t = out.get("type")
    if isinstance(t, list):
        others = [x for x in t if x != "null"]
        rest = {k: v for k, v in out.items() if k != "type"}
        branches = [dict(rest, type=x) for x in others]
        if "null" in t:
            branches.append(copy.deepcopy(NULL))
        keep = {k: out[k] for k in ("description", "title", "example") if k in out}
        out = dict(keep, anyOf=branches) if len(branches) > 1 else branches[0]
    elif t == "null":
        out = dict({k: v for k, v in out.items() if k != "type"}, **copy.deepcopy(NULL))
    if "$ref" in out and len(out) > 1:
        # 3.0 ignores a reference's siblings; keep the reference alone.
        out = {"$ref": out["$ref"]}
    return out


def media_json(content):
    """The schema a differ should compare for one `content` map, or None."""
    if not isinstance(content, dict):
        return None
    for media in ("application/json", "application/problem+json"):
        if media in content and "schema" in content[media]:
            return content[media]["schema"]
    if "text/event-stream" in content:
        frame = content["text/event-stream"].get("schema", {})
        data = frame.get("properties", {}).get("data", {})
        if "contentSchema" in data:
            return data["contentSchema"]
    return None


def responses_30(responses):
    out = {}
    for status, response in (responses or {}).items():
        r = {"description": response.get("description", "")}
        if "headers" in response:
            r["headers"] = {
                name: {k: schema_30(v) if k == "schema" else v for k, v in h.items() if k != "example"}
                for name, h in response["headers"].items()
            }
        schema = media_json(response.get("content"))
        if schema is not None:
            r["content"] = {"application/json": {"schema": schema_30(schema)}}
        out[status] = r
    return out


def request_30(item, op):
    """The operation's parameters and body as one request body."""
    props = {}
    required = []
    params = {(p["in"], p["name"]): p for p in item.get("parameters", []) if "name" in p}
    params.update({(p["in"], p["name"]): p for p in op.get("parameters", []) if "name" in p})
    for (where, name), p in sorted(params.items()):
        key = f"{where} {name}"
        props[key] = schema_30(p.get("schema", {}))
        if p.get("required") or where == "path":
            required.append(key)
    body = op.get("requestBody")
    if body:
        schema = media_json(body.get("content"))
        if schema is None:
            # Another media type only (text/csv): its presence and requiredness still count.
            schema = {"type": "string"}
        props["body"] = schema_30(schema)
        if body.get("required"):
            required.append("body")
    # Closed: a request carries the parameters the operation names and no others, so an added
    # optional parameter widens what may be sent (compatible) while a removed one, a new
    # required one or one that accepts less narrows it (breaking).
    schema = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"content": {"application/json": {"schema": schema}}}


def operation_30(item, op):
    out = {"responses": responses_30(op.get("responses"))}
    if "operationId" in op:
        out["operationId"] = op["operationId"]
    out["requestBody"] = request_30(item, op)
    return out


def _target(node, schemas):
    """The schema `node` names when it is a reference, else `node`."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        return schemas.get(ref.rsplit("/", 1)[1], node)
    return node


def _plain_object(node):
    return (
        isinstance(node, dict)
        and isinstance(node.get("properties"), dict)
        and not any(k in node for k in ("anyOf", "oneOf", "allOf", "not", "additionalProperties"))
    )


def _distributed(node, schemas):
    """`allOf: [union, object...]` as the union of each branch with the objects' properties,
    when every part is a plain object and no property is named twice; else `node`."""
    parts = [_target(p, schemas) for p in node.get("allOf", [])]
    unions = [p for p in parts if isinstance(p, dict) and "anyOf" in p]
    others = [p for p in parts if not (isinstance(p, dict) and "anyOf" in p)]
    if len(unions) != 1 or not others or not all(_plain_object(o) for o in others):
        return node
    branches = [_target(b, schemas) for b in unions[0]["anyOf"]]
    if not all(_plain_object(b) for b in branches):
        return node
    out = []
    for branch in branches:
        merged = copy.deepcopy(branch)
        for other in others:
            if set(other["properties"]) & set(merged["properties"]):
                return node
            merged["properties"].update(copy.deepcopy(other["properties"]))
            merged["required"] = merged.get("required", []) + other.get("required", [])
        out.append(merged)
    rest = {k: v for k, v in node.items() if k != "allOf"}
    return dict(rest, anyOf=out)


def _tag(branches, schemas):
    """(the property, each branch's value) when every branch requires that property and fixes
    it to a single value of its own; else None."""
    objects = [_target(b, schemas) for b in branches]
    if len(objects) < 2 or not all(isinstance(o, dict) and isinstance(o.get("properties"), dict) for o in objects):
        return None
    for key in sorted(set.intersection(*(set(o["properties"]) for o in objects))):
        values = []
        for o in objects:
            p = o["properties"][key]
            fixed = isinstance(p, dict) and isinstance(p.get("enum"), list) and len(p["enum"]) == 1
            if not fixed or key not in o.get("required", []):
                break
            values.append(json.dumps(p["enum"][0]) if not isinstance(p["enum"][0], str) else p["enum"][0])
        else:
            if len(set(values)) == len(values):
                return key, values
    return None


def _schema_nodes(node, rewrite):
    """`node` with `rewrite` applied to every schema in it, innermost first."""
    if isinstance(node, list):
        return [_schema_nodes(x, rewrite) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k == "properties" and isinstance(v, dict):
            out[k] = {name: _schema_nodes(x, rewrite) for name, x in v.items()}
        else:
            out[k] = _schema_nodes(v, rewrite)
    return rewrite(out)


def tagged_unions(doc):
    """The view with its tagged unions as closed objects (see the module's docstring)."""
    schemas = doc["components"]["schemas"]
    doc = _schema_nodes(doc, lambda n: _distributed(n, schemas) if "allOf" in n else n)
    schemas = doc["components"]["schemas"]

    def as_object(node):
        found = _tag(node["anyOf"], schemas) if isinstance(node.get("anyOf"), list) else None
        if found is None:
            return node
        key, values = found
        keep = {k: node[k] for k in ("description", "title") if k in node}
        branches = {f"{key}={v}": b for v, b in zip(values, node["anyOf"])}
        return dict(keep, type="object", properties=branches, additionalProperties=False)

    return _schema_nodes(doc, as_object)


def view(doc):
    out = {
        "openapi": "3.0.3",
        "info": {"title": doc["info"]["title"], "version": doc["info"]["version"]},
        "paths": {},
        "components": {
            "schemas": {
                name: schema_30(s) for name, s in doc.get("components", {}).get("schemas", {}).items()
            }
        },
    }
    for path, item in doc.get("paths", {}).items():
        out["paths"][path] = {m: operation_30(item, op) for m, op in item.items() if m in METHODS}
    for kind, item in (doc.get("webhooks") or {}).items():
        post = item.get("post", {})
        schema = media_json(post.get("requestBody", {}).get("content"))
        if schema is None:
            continue
        out["paths"][WEBHOOK_PREFIX + kind] = {
            "get": {
                "operationId": f"webhook_{kind}",
                "responses": {
                    "200": {
                        "description": f"The body of a `{kind}` delivery",
                        "content": {"application/json": {"schema": schema_30(schema)}},
                    }
                },
            }
        }
    return tagged_unions(out)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump(view(doc), f, indent=1)


if __name__ == "__main__":
    main()


def _deref(node, schemas, seen=()):
    """`node` with every schema reference replaced by its target (a cycle keeps its `$ref`),
    and the words a differ ignores (descriptions, examples) left out."""
    if isinstance(node, list):
        return [_deref(x, schemas, seen) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[1]
        if name in seen or name not in schemas:
            return {"$ref": ref}
        return _deref(schemas[name], schemas, seen + (name,))
    return {
        k: _deref(v, schemas, seen)
        for k, v in node.items()
        if k not in ("description", "summary", "example", "title", "operationId")
    }


def prune(old, new):
    """Both views without the operations that are the same in both once resolved, so that
    openapi-diff (about a second per operation on a shared machine) reads only what changed.
    Operations on one side only stay: their addition or removal is its finding."""
    old_s = old["components"]["schemas"]
    new_s = new["components"]["schemas"]
    for path in set(old["paths"]) & set(new["paths"]):
        a, b = old["paths"][path], new["paths"][path]
        for method in set(a) & set(b):
            same = json.dumps(_deref(a[method], old_s), sort_keys=True) == json.dumps(
                _deref(b[method], new_s), sort_keys=True
            )
            if same:
                del a[method]
                del b[method]
        if not a and not b:
            del old["paths"][path]
            del new["paths"][path]
    return old, new
