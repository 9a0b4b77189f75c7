#!/usr/bin/env python3
"""A deliberately simple A2A v1.0 client, written against the a2a-conformance NDJSON protocol.

Standard library only: ssl with the CA file it is handed, http.client, json. It really talks to the
peers over TLS: fetches the card, sends one message (all input in one payload), polls GetTask to a
terminal state, cancels what does not finish in time. Where the card lists an OAuth 2.0
client-credentials scheme and the run handed it credentials for that token URL, it gets a token and
presents it as Bearer (a new one, once, on a 401). It checks nothing else on the card, so it passes
some rules and fails others. Protocol: docs/protocol.md of a2a-conformance.
"""
import base64
import http.client
import json
import ssl
import sys
import threading
import time
import uuid
from urllib.parse import quote, urlsplit

TERMINAL = {"TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"}
out_lock = threading.Lock()


def log(*args):
    print("[python-simple]", *args, file=sys.stderr, flush=True)


def send(msg):
    with out_lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


class Peer:
    def __init__(self, tls):
        self.ctx = ssl.create_default_context(cafile=tls["caFile"])
        self.ctx.load_cert_chain(tls["clientCertFile"], tls["clientKeyFile"])
        self.next_id = 1
        self.token = None
        self.get_token = None

    def request(self, method, url, body=None, headers=None):
        u = urlsplit(url)
        conn = http.client.HTTPSConnection(u.hostname, u.port, context=self.ctx, timeout=5)
        try:
            h = {"A2A-Version": "1.0", "Accept": "application/json"}
            data = None
            if isinstance(body, str):
                data = body.encode()
            elif body is not None:
                data = json.dumps(body).encode()
                h["Content-Type"] = "application/json"
            h.update(headers or {})
            conn.request(method, u.path, body=data, headers=h)
            res = conn.getresponse()
            return res.status, res.read()
        finally:
            conn.close()

    def rpc(self, url, method, params):
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        auth = lambda: {"Authorization": "Bearer " + self.token} if self.token else {}
        status, raw = self.request("POST", url, body, auth())
        if status == 401 and self.get_token:
            # A new token, once (a call repeated with the same credentials never helps).
            self.token = self.get_token()
            if self.token:
                status, raw = self.request("POST", url, body, auth())
        if status != 200:
            return None, "HTTP %d" % status
        body = json.loads(raw)
        if "error" in body:
            return None, "JSON-RPC %s" % body["error"].get("code")
        return body.get("result"), None


def run(req, aborted):
    started = time.monotonic()
    budget = req["deadlineMs"] / 1000.0 - 0.8
    intent = req["intent"]
    task_ids = []

    def result(decision, notes, error_class=None):
        r = {"type": "result", "id": req["id"], "decision": decision, "degradations": [], "taskIds": task_ids, "notes": notes}
        if error_class:
            r["errorClass"] = error_class
        return r

    peer = Peer(req["tls"])
    try:
        status, raw = peer.request("GET", req["cardUrl"])
    except (ssl.SSLError, OSError) as err:
        log("card fetch failed:", err)
        return result("rejected", "card fetch failed: %s" % err, "handshake")
    if status != 200:
        return result("rejected", "card fetch answered HTTP %d" % status, "untrusted-card")
    card = json.loads(raw)
    iface = next((i for i in card.get("supportedInterfaces", []) if i.get("protocolBinding") == "JSONRPC"), None)
    if iface is None:
        return result("rejected", "no JSON-RPC interface", "unnegotiable-card")
    url = iface["url"]

    # OAuth 2.0 client credentials (RFC 6749 §4.4) for a scheme the card lists, with what the run handed over.
    for scheme in (card.get("securitySchemes") or {}).values():
        token_url = (((scheme.get("oauth2SecurityScheme") or {}).get("flows") or {}).get("clientCredentials") or {}).get("tokenUrl")
        cred = next((c for c in req.get("credentials") or [] if c.get("tokenUrl") == token_url), None)
        if token_url and cred:
            basic = base64.b64encode(("%s:%s" % (quote(cred["clientId"], safe=""), quote(cred["clientSecret"], safe=""))).encode()).decode()

            def get_token(token_url=token_url, basic=basic):
                status, raw = peer.request("POST", token_url, "grant_type=client_credentials", {"Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
                return json.loads(raw).get("access_token") if status == 200 else None

            peer.get_token = get_token
            peer.token = get_token()
            break

    inp = intent["input"]
    if inp.get("frames"):
        payload = bytes(inp["frames"] * inp["frameBytes"])
        part = {"raw": base64.b64encode(payload).decode(), "mediaType": inp["mediaType"]}
    else:
        part = {"text": inp.get("text", "hello"), "mediaType": inp["mediaType"]}
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [part]}
    config = {"acceptedOutputModes": intent["acceptedOutputModes"], "returnImmediately": True}
    sent, err = peer.rpc(url, "SendMessage", {"message": message, "configuration": config})
    if err:
        return result("rejected", "SendMessage failed: %s" % err, "handshake")
    task = sent["task"]
    task_ids.append(task["id"])
    log("task", task["id"], task["status"]["state"])
    if intent["taskClass"] == "fire-and-forget":
        return result("proceeded", "sent, not followed")

    state = task["status"]["state"]
    while state not in TERMINAL and not aborted.is_set():
        if time.monotonic() - started > budget:
            peer.rpc(url, "CancelTask", {"id": task["id"]})
            return result("proceeded", "no terminal state in time (last %s); canceled" % state)
        time.sleep(0.1)
        got, err = peer.rpc(url, "GetTask", {"id": task["id"]})
        if got:
            state = got["status"]["state"]
        if state == "TASK_STATE_INPUT_REQUIRED":
            peer.rpc(url, "CancelTask", {"id": task["id"]})
            return result("proceeded", "the peer wants more input; canceled")
    return result("proceeded", "task ended %s" % state)


def main():
    current = {}
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "hello", "name": "python-simple", "version": "0.1.0", "profile": None,
                  "taskClasses": ["text", "live-input", "async-completion", "artifact", "fire-and-forget"],
                  # It speaks A2A v1.0 JSON-RPC only: scenarios for a v0.3 client are not run for it.
                  "dialects": ["a2a-v1"],
                  # What it does not implement (docs/protocol.md, Declared capabilities): the scenarios
                  # that need these are listed as not run, and its tier is for the rest.
                  "notImplemented": [
                      {"capability": "signed-card-verification", "reason": "standard library only: no JWS verification"},
                      {"capability": "push-receiver", "reason": "it polls GetTask; it hosts no receiver"},
                      {"capability": "streaming", "reason": "it polls GetTask; it reads no event stream"},
                  ]})
        elif kind == "run":
            aborted = threading.Event()
            current[msg["id"]] = aborted

            def work(req=msg, flag=aborted):
                try:
                    send(run(req, flag))
                except Exception as err:  # a bug of this client: say so, the harness grades it
                    log("run failed:", repr(err))
                    send({"type": "result", "id": req["id"], "decision": "rejected", "errorClass": "handshake",
                          "degradations": [], "taskIds": [], "notes": "client error: %r" % err})

            threading.Thread(target=work, daemon=True).start()
        elif kind == "abort":
            flag = current.get(msg.get("id"))
            if flag:
                flag.set()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
