#!/usr/bin/env python3
"""Follow Registrar's accounts from another service (confluent-kafka, PyNaCl): take an event of `account.events` only
if the worker that publishes its type signed it, and each event once.

    account_events_example.py follow BOOTSTRAP KEYS_DIR [--group G] [--properties FILE] [--count N] [--timeout S]
        reads account.events in consumer group G (default registrar-events; new groups start at the beginning) as the
        principal of FILE's librdkafka settings (`name=value` lines: security.protocol, sasl.*, ssl.ca.location …),
        verifies each message with the public event keys in KEYS_DIR (events-<role>.ed25519.pub, and
        events-<role>.previous.pub during a rotation) and prints each genuine event, once per eventId, as a JSON line
        on standard output; a message that is not genuine is reported as "refused: <why>" on standard error and
        skipped. Stops after N events (default: never) or S seconds without a message (default: never).
    account_events_example.py check KEYS_DIR TOPIC KEY HEADERS_JSON < value
        the same check for one message (its value on standard input, its headers a JSON list of [name, value] pairs):
        prints the event's JSON, or "refused: <why>" and exits 1.

Every check here is one the contract asks of a consumer (asyncapi.yaml, channel accountEvents; account-events.schema.json).
It takes the signature check from outcome_example.py beside it (copy both).
"""
import json
import sys
import time

# The signature check is the outcome example's: every worker event is signed alike.
from outcome_example import Refused, verify_signature

TOPIC = "account.events"
# The role whose key signs each type (the contract's Announcements.account).
PRODUCERS = {
    "AccountRegistered": "account",
    "EmailVerified": "account",
    "ProfileUpdated": "profile",
    "EmailChanged": "account",
    "PasswordChanged": "account",
    "AccountDeleted": "account",
    # The operator's actions (registrar operator), each with an actor: "operator:<name>".
    "AccountInspected": "account",
    "AccountUnlocked": "account",
    "AccountDisabled": "account",
    "AccountEnabled": "account",
    "PasswordResetForced": "account",
    "AccountDeletionOrdered": "account",
}
FIELDS = {"type", "version", "eventId", "uid", "occurredAt", "changed"}
OPTIONAL = {"actor"}
CHANGED = {"email", "password", "name", "profileImage", "isMapLocationEnabled"}


def take(keys_dir, topic, key, headers, value):
    """The event of a message read on `topic`, if it is genuine; else raises Refused."""
    if topic != TOPIC:
        raise Refused("not read on %s" % TOPIC)
    try:
        event = json.loads(value)
    except ValueError:
        raise Refused("not JSON")
    if not isinstance(event, dict) or not FIELDS <= set(event) <= FIELDS | OPTIONAL or event.get("version") != 1:
        raise Refused("not an account event of version 1")
    role = PRODUCERS.get(event["type"])
    if role is None:
        raise Refused("unknown type %r" % event["type"])
    if not isinstance(event["uid"], str) or key != event["uid"].encode():
        raise Refused("the message key is not the event's uid")
    if not isinstance(event["changed"], list) or not set(event["changed"]) <= CHANGED:
        raise Refused("changed names unknown fields")
    verify_signature(keys_dir, role, topic, key, event["type"], headers, value)
    return event


def text_headers(message):
    return [(name, (value or b"").decode("utf-8", "replace")) for name, value in (message.headers() or [])]


def follow(bootstrap, keys_dir, group="registrar-events", properties=None, count=None, timeout=None):
    from confluent_kafka import Consumer  # only following needs a broker client

    settings = {"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                "enable.auto.commit": False}
    if properties:
        for line in open(properties):
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                name, value = line.split("=", 1)
                settings[name.strip()] = value.strip()
    consumer = Consumer(settings)
    consumer.subscribe([TOPIC])
    seen = set()  # a real service keeps the ids it has seen with what it did with them, in its own store
    taken = 0
    last = time.monotonic()
    try:
        while count is None or taken < count:
            message = consumer.poll(0.5)
            if message is None:
                if timeout is not None and time.monotonic() - last > timeout:
                    break
                continue
            last = time.monotonic()
            if message.error():
                print("refused: %s" % message.error(), file=sys.stderr)
                continue
            try:
                event = take(keys_dir, message.topic(), message.key() or b"", text_headers(message), message.value() or b"")
            except Refused as refusal:
                print("refused: %s (partition %d, offset %d)" % (refusal, message.partition(), message.offset()), file=sys.stderr)
            else:
                if event["eventId"] not in seen:
                    seen.add(event["eventId"])
                    taken += 1
                    print(json.dumps(event, sort_keys=True), flush=True)
            consumer.commit(message=message, asynchronous=False)
    finally:
        consumer.close()


def option(arguments, name, default=None, kind=str):
    if name in arguments:
        return kind(arguments[arguments.index(name) + 1])
    return default


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "follow":
        args = sys.argv[2:]
        follow(args[0], args[1], group=option(args, "--group", "registrar-events"), properties=option(args, "--properties"),
               count=option(args, "--count", None, int), timeout=option(args, "--timeout", None, float))
    elif command == "check":
        keys_dir, topic, key, headers = sys.argv[2:6]
        try:
            print(json.dumps(take(keys_dir, topic, key.encode(), json.loads(headers), sys.stdin.buffer.read()), sort_keys=True))
        except Refused as refusal:
            print("refused: %s" % refusal)
            sys.exit(1)
    else:
        sys.exit(__doc__)
