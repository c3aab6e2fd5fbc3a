#!/usr/bin/env python3
"""Take an outcome of Registrar's as an outside client must (PyNaCl): only if the worker that answers signed it, and
its sealed answer only if it opens with the request's own reply key and names that request and purpose.

    outcome_example.py keypair
        prints a new reply key pair: the private key, then the public key (the request's `replyKey`), base64
    outcome_example.py open KEYS_DIR PRIVATE_KEY REQUEST_ID TOPIC HEADERS_JSON < value
        verifies the message read on TOPIC (its value on standard input, its headers as a JSON list of
        [name, value] pairs) with the public event keys in KEYS_DIR (events-<role>.ed25519.pub), checks it answers
        REQUEST_ID, opens its sealed answer (if any) with PRIVATE_KEY and prints the outcome's JSON with the answer
        opened under "opened"; prints "refused: <why>" and exits 1 for anything else, which a client ignores (it
        keeps waiting for the genuine outcome).

Every check here is one the contract (asyncapi.yaml, "Taking an outcome") asks of a client.
"""
import base64
import hashlib
import json
import os
import struct
import sys

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.public import PrivateKey, SealedBox
from nacl.signing import VerifyKey

LABEL = b"registrar-event-signature"
VERSION = b"\x01"
# The role whose key signs each outcome type, and the field its sealed answer is in with the purpose it names.
PRODUCERS = {
    "RegistrationCompleted": ("account", "sealedResult", "registration_result"),
    "RegistrationFailed": ("account", None, None),
    "TokenIssued": ("account", "sealedTokens", "tokens"),
    "TokenRefused": ("account", None, None),
    "ProfileAnswered": ("account", "sealedProfile", "profile"),
    "AccountChangeCompleted": ("account", None, None),
    "AccountChangeFailed": ("account", None, None),
    "ProfileUpdated": ("account", "sealedProfile", "profile"),
    "CodeSent": ("code-dispatch", None, None),
    "CodeRefused": ("code-dispatch", None, None),
}


class Refused(Exception):
    pass


def signed_bytes(topic, key, event_type, value):
    """What the signature covers: the label, the version, then topic, key, type and value, each length-prefixed."""
    parts = [topic.encode(), key, event_type.encode(), value]
    return LABEL + VERSION + b"".join(struct.pack(">I", len(part)) + part for part in parts)


def public_keys(keys_dir, role):
    """The role's public event keys by key id (the first 16 hex digits of the key's SHA-256): current and previous."""
    keys = {}
    for name in ("events-%s.ed25519.pub" % role, "events-%s.previous.pub" % role):
        path = os.path.join(keys_dir, name)
        if os.path.exists(path):
            raw = base64.b64decode(open(path).read().strip())
            keys[hashlib.sha256(raw).hexdigest()[:16]] = VerifyKey(raw)
    return keys


def take(keys_dir, private_key, request_id, topic, headers, value):
    """The outcome, its sealed answer opened, if it is genuine and this request's; else raises Refused."""
    event = json.loads(value)
    event_type = event.get("type")
    if event_type not in PRODUCERS:
        raise Refused("not an outcome type")
    key = event.get("requestId", event.get("registrationId"))
    if key != request_id:
        raise Refused("another request's outcome")
    role, field, purpose = PRODUCERS[event_type]
    key_ids = [v for k, v in headers if k == "signature-key"]
    signatures = [v for k, v in headers if k == "signature"]
    if len(key_ids) != 1 or len(signatures) != 1:
        raise Refused("not signed")
    verify_key = public_keys(keys_dir, role).get(key_ids[0])
    if verify_key is None:
        raise Refused("signed by a key that is not the %s role's" % role)
    signature = base64.urlsafe_b64decode(signatures[0] + "=" * (-len(signatures[0]) % 4))
    try:
        verify_key.verify(signed_bytes(topic, request_id.encode(), event_type, value), signature)
    except BadSignatureError:
        raise Refused("the signature does not match the message")
    if field is not None:
        try:
            answer = json.loads(SealedBox(PrivateKey(base64.b64decode(private_key))).decrypt(base64.b64decode(event[field])))
        except CryptoError:
            raise Refused("the answer is not sealed to this request's reply key")
        if answer.get("requestId") != request_id or answer.get("purpose") != purpose:
            raise Refused("the answer names another request or purpose")
        event["opened"] = answer
    return event


if __name__ == "__main__":
    if sys.argv[1] == "keypair":
        pair = PrivateKey.generate()
        print(base64.b64encode(bytes(pair)).decode())
        print(base64.b64encode(bytes(pair.public_key)).decode())
        sys.exit(0)
    keys_dir, private_key, request_id, topic, headers = sys.argv[2:7]
    try:
        print(json.dumps(take(keys_dir, private_key, request_id, topic, json.loads(headers), sys.stdin.buffer.read())))
    except Refused as refusal:
        print("refused: %s" % refusal)
        sys.exit(1)
