#!/usr/bin/env python3
"""Seal a secret for one field of one Registrar request, as a client of another make does (PyNaCl).

    seal_example.py PUBLIC_KEY PURPOSE REQUEST_ID EMAIL REPLY_KEY < secret

PUBLIC_KEY is the account worker's sealing public key (base64, `registrar keys` prints it); PURPOSE one of
registration_password, sign_in_password, reauthentication, new_password, code, refresh_token; REQUEST_ID,
EMAIL and REPLY_KEY are the request's own `requestId` (a registration's `registrationId`), `email` ("-" for a
refresh, whose request has none) and `replyKey`. Prints the base64 sealed box for the request's field.
"""
import base64
import hashlib
import json
import sys
import time

from nacl.public import PublicKey, SealedBox


def seal(public_key, purpose, request_id, email, reply_key, secret, sealed_at=None):
    """The SealedSecret JSON for this request, sealed (crypto_box_seal) to `public_key`, in base64."""
    payload = {
        "purpose": purpose,
        "requestId": request_id,
        "replyKeyFingerprint": hashlib.sha256(reply_key.encode("utf-8")).hexdigest(),
        "sealedAt": int(time.time() if sealed_at is None else sealed_at),
        "secret": secret,
    }
    if email is not None:
        payload["email"] = email
    box = SealedBox(PublicKey(base64.b64decode(public_key)))
    return base64.b64encode(box.encrypt(json.dumps(payload).encode("utf-8"))).decode("ascii")


if __name__ == "__main__":
    key, purpose, request_id, email, reply_key = sys.argv[1:6]
    secret = sys.stdin.read().removesuffix("\n")
    print(seal(key, purpose, request_id, None if email == "-" else email, reply_key, secret))
