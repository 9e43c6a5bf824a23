#!/usr/bin/env python3
"""Receive slotd's webhooks on this machine and check their signatures.

    python3 docs/webhook-receiver.py [PORT]        (default 9000)

Prints one line per delivery: the event type, its id and whether the
signature verifies (Standard Webhooks, api-v1 §6.4). The signing secret
(whsec_...) is read from the file ./whsec at each delivery: slotd pings an
endpoint while it is being registered, before you hold its secret, so that
ping is answered 204 and printed as "no secret yet". Any other answer than
2xx would refuse the registration. Python 3.9 or later, standard library
only.
"""
import base64
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def verify(secret, headers, body):
    """Returns "ok" or why the delivery does not verify."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    msg_id, stamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not stamp.isdigit() or abs(time.time() - int(stamp)) > 300:
        return "BAD: timestamp more than 5 minutes away"
    signed = f"{msg_id}.{stamp}.".encode() + body  # the raw body, never re-serialized
    want = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for sig in headers.get("webhook-signature", "").split(" "):
        version, _, value = sig.partition(",")
        if version == "v1" and hmac.compare_digest(value, want):
            return "ok"
    return "BAD: no signature matches"


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            with open("whsec") as f:
                secret = f.read().strip()
        except FileNotFoundError:
            secret = ""
        # The registration's "> whsec" makes the file, empty, before the
        # ping arrives: empty is no secret yet too.
        verdict = "signature " + verify(secret, self.headers, body) if secret else "no secret yet (./whsec)"
        try:
            event = json.loads(body).get("type", "?")
        except ValueError:
            event = "?"
        print(f"webhook {event} id={self.headers.get('webhook-id')} {verdict}", flush=True)
        self.send_response(401 if "BAD" in verdict else 204)
        self.end_headers()

    def log_message(self, *args):  # one line per delivery is enough
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 9000
    print(f"receiving webhooks on http://127.0.0.1:{port}/", flush=True)
    HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
