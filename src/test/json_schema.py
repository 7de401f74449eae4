#!/usr/bin/env python3
"""json_schema.py [--cache FILE] SCHEMA FILE... - validate every JSON document wheelscan wrote against
man/wheelscan.schema.json (draft 2020-12). A file holds one document or JSON lines (--jsonl).
Prints each failure and "N passed, N failed"; exits 1 on any failure, or when the validator
(Debian: python3-jsonschema) is missing, since a check that cannot run must not pass."""
import hashlib
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator, validators
except ImportError:
    print("FAIL: the python3 on PATH (%s) cannot import jsonschema: make deps-test, or pip install jsonschema" % sys.executable)
    print("0 passed, 1 failed")
    sys.exit(1)


def documents(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        return []
    try:
        return [("", json.loads(text))]
    except json.JSONDecodeError:
        pass
    # JSON lines: every line must parse
    return [(":%d" % (i + 1), json.loads(line)) for i, line in enumerate(text.splitlines()) if line.strip()]


def validator(schema):
    """A draft 2020-12 validator that checks each distinct artifact once: the tests write the
    same fixtures' artifacts hundreds of times, and the schema's check of an artifact does not
    depend on where it sits, so a repeat (same canonical JSON) that passed passes again."""
    base = Draft202012Validator.VALIDATORS["$ref"]
    passed = set()

    def ref(v, ref_, instance, subschema):
        if ref_ != "#/$defs/artifact":
            yield from base(v, ref_, instance, subschema)
            return
        key = hashlib.sha256(json.dumps(instance, sort_keys=True).encode()).digest()
        if key in passed:
            return
        errors = list(base(v, ref_, instance, subschema))
        if not errors:
            passed.add(key)
        yield from errors

    Draft202012Validator.check_schema(schema)
    return validators.extend(Draft202012Validator, {"$ref": ref})(schema)


def check_file(v, path):
    """True when every document in path validates; prints what does not."""
    try:
        docs = documents(path)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        print("FAIL %s: not JSON: %s" % (path, e))
        return False
    ok = True
    for where, doc in docs:
        errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            continue
        ok = False
        print("FAIL %s%s:" % (path, where))
        for e in errors[:3]:
            # oneOf at the top hides the cause: show the deepest branch's errors
            best = e
            while best.context:
                best = max(best.context, key=lambda c: len(list(c.absolute_path)))
            print("  at /%s: %s" % ("/".join(str(p) for p in best.absolute_path), best.message[:300]))
    return ok


def main():
    args = sys.argv[1:]
    cache_path = None
    if len(args) > 1 and args[0] == "--cache":
        cache_path, args = args[1], args[2:]
    with open(args[0], "rb") as f:
        schema_bytes = f.read()
    schema = json.loads(schema_bytes)
    v = validator(schema)
    # --cache FILE: sha256 of (schema, document) pairs that passed before; the same bytes
    # against the same schema pass again (the second, sanitizer pass of make test).
    cached = set()
    if cache_path and os.path.exists(cache_path):
        with open(cache_path, encoding="ascii") as f:
            cached = set(line.strip() for line in f)
    newly = []
    passed = failed = 0                    # files, each with all its documents
    seen = {}
    for path in args[1:]:
        with open(path, "rb") as f:
            digest = hashlib.sha256(schema_bytes + b"\0" + f.read()).hexdigest()
        if digest in cached:
            seen[digest] = True
        if digest not in seen:             # the same bytes again: the same verdict
            seen[digest] = check_file(v, path)
            if seen[digest]:
                newly.append(digest)
        if seen[digest]:
            passed += 1
        else:
            failed += 1
    if cache_path and newly:
        os.makedirs(os.path.dirname(cache_path) or ".", exist_ok=True)
        with open(cache_path, "a", encoding="ascii") as f:
            f.write("".join(h + "\n" for h in newly))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
