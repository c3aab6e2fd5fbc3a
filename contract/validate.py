#!/usr/bin/env python3
"""Validates Registrar events against the contract with a real JSON Schema validator.

Reads JSON lines on stdin, each an event body (as published on a topic). Checks first that the
schema is valid, that asyncapi.yaml names every event in it and lists exactly its dead-letter reasons. Prints one line per invalid event
and exits 1 if any is invalid, 0 otherwise (with a count). Uses Debian's python3-jsonschema/yaml.
With the argument `account-events`, each line is a message of account.events, checked against account-events.schema.json.
"""
import json
import pathlib
import re
import sys

import jsonschema
import yaml

here = pathlib.Path(__file__).parent
schema = json.loads((here / "events.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
spec = yaml.safe_load((here / "asyncapi.yaml").read_text())
named = set(spec["components"]["messages"])
defined = {ref["$ref"].split("/")[-1] for ref in schema["oneOf"]}
if named != defined:
    sys.exit(f"asyncapi.yaml and events.schema.json disagree: {sorted(named ^ defined)}")
listed = re.search(r"`dlq\.reason` \(([^;)]*)", " ".join(spec["info"]["description"].split()))
reasons = schema["$defs"]["DeadLetterReason"]["enum"]
if listed is None or [r.strip() for r in listed.group(1).split(",")] != reasons:
    sys.exit(f"asyncapi.yaml's dlq.reason list differs from events.schema.json's DeadLetterReason: {reasons}")

if sys.argv[1:] == ["account-events"]:
    account_events = json.loads((here / "account-events.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(account_events)
    schema = {"$defs": {kind: account_events for kind in account_events["properties"]["type"]["enum"]}}
validator = jsonschema.Draft202012Validator(schema)
bad = 0
count = 0
for number, line in enumerate(sys.stdin, 1):
    if not line.strip():
        continue
    count += 1
    event = json.loads(line)
    definition = schema["$defs"].get(event.get("type"))
    if definition is None:
        print(f"line {number}: unknown type {event.get('type')!r}")
        bad += 1
        continue
    errors = list(jsonschema.Draft202012Validator({**definition, "$defs": schema["$defs"]}).iter_errors(event))
    if errors or not validator.is_valid(event):
        bad += 1
        for error in errors:
            print(f"line {number} ({event.get('type')}): {error.json_path}: {error.message}")
print(f"{count} events checked, {bad} invalid")
sys.exit(1 if bad else 0)
