#!/usr/bin/env python3
"""The account pages in a real browser (issue 40, item 2): from the message in the SMTP
server's maildir to the signed-in account. The service sends its mail to an aiosmtpd server
whose Mailbox handler keeps every message in MAILDIR (started by .ci/run), and carries links
under PUBLIC_BASE_URL. For each flow the script reads the link from the message, opens it in
headless chromium (driven over the DevTools protocol, the WebSocket client of
embed_browser.py), fills and submits the page's form as a person would, screenshots the
answer into OUTDIR, and checks the outcome through the JSON API:

- a sign-up's address is confirmed: the account signs in, and `GET /me` says verified;
- a password reset: the new password signs in, the old one no longer does;
- an address change (`PATCH /me`): the code's link confirms the new address.

Standard library only (and chromium). Usage: account_pages_browser.py BASE_URL MAILDIR OUTDIR
"""

import base64
import email
import email.policy
import json
import mailbox
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from embed_browser import DevTools  # noqa: E402

PASSWORD = "a browser-typed passphrase"


def call(base, method, path, body=None, token=None):
    """(status, JSON body or None) of a JSON operation."""
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, None


def sign_in(base, username, password):
    status, body = call(base, "POST", "/api/v1/auth/token",
                        {"username": username, "password": password})
    return status, (body or {}).get("access_token")


def text_of(message):
    """The plain-text part of a message."""
    part = message.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


def wait_for_mail(maildir, to, seen, timeout=30):
    """The text of the first message to `to` not among `seen` (keys), waiting for it."""
    box = mailbox.Maildir(maildir, factory=None, create=False)
    deadline = time.time() + timeout
    while time.time() < deadline:
        for key in box.keys():
            if key in seen:
                continue
            raw = box.get_bytes(key)
            message = email.message_from_bytes(raw, policy=email.policy.default)
            if to.lower() in str(message.get("to", "")).lower():
                seen.add(key)
                return message.get("subject", ""), text_of(message)
        time.sleep(0.2)
    sys.exit(f"no message to {to} in {maildir} within {timeout} s")


def link_in(text, path):
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("http") and path in line:
            return line
    sys.exit(f"no link to {path} in the message:\n{text}")


def wait_until(dev, expression, what, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if dev.evaluate(expression):
                return
        except (ValueError, IndexError, KeyError, SystemExit):
            pass  # between two documents (DevTools answers an error for the old context)
        time.sleep(0.1)
    body = dev.evaluate("document.body ? document.body.innerText : ''")
    sys.exit(f"{what}: not within {timeout} s; the page says:\n{body}")


def open_page(dev, url):
    dev.call("Page.navigate", url=url)
    wait_until(dev, "document.readyState === 'complete' && !!document.querySelector('form')",
               f"the form of {url}")


def submit(dev, fields):
    """Types `fields` (name -> value) into the form and presses its button, as a person does;
    waits for the answer page."""
    for name, value in fields.items():
        dev.evaluate(f"(() => {{ const i = document.querySelector('[name={json.dumps(name)}]');"
                     f" i.focus(); i.value = {json.dumps(value)};"
                     " i.dispatchEvent(new Event('input', {bubbles: true})); })()")
    dev.evaluate("document.querySelector('form button[type=submit]').click()")
    wait_until(dev, "document.readyState === 'complete' && "
                    "!!document.querySelector('.done, .error')", "an answer page")
    error = dev.evaluate("(document.querySelector('.error') || {}).innerText || ''")
    if error:
        sys.exit(f"the page answered an error: {error}")
    return dev.evaluate("document.querySelector('.done').innerText")


def screenshot(dev, out, name):
    shot = os.path.join(out, f"{name}.png")
    data = dev.call("Page.captureScreenshot", format="png")["data"]
    with open(shot, "wb") as f:
        f.write(base64.b64decode(data))
    print(f"{name}: {shot} ({os.path.getsize(shot)} bytes)")


def confirm_sign_up(base, maildir, dev, out, seen, username, address):
    status, _ = call(base, "POST", "/api/v1/auth/signup",
                     {"username": username, "email": address, "password": PASSWORD})
    assert status == 202, status
    assert sign_in(base, username, PASSWORD)[0] == 403, "signs in before the address is proved"
    _, text = wait_for_mail(maildir, address, seen)
    link = link_in(text, "/account/verify-email")
    open_page(dev, link)
    screenshot(dev, out, "verify-form")
    done = submit(dev, {})
    screenshot(dev, out, "verify-done")
    print("verify page:", done)
    status, token = sign_in(base, username, PASSWORD)
    assert status == 200, f"sign-in after the page confirmed the address: {status}"
    _, me = call(base, "GET", "/api/v1/me", token=token)
    assert me["email_verified"] is True and me["email"] == address, me
    print(f"{username}: confirmed in chromium from the message, signed in, verified")
    return token


def reset_password(base, maildir, dev, out, seen, username, address):
    status, _ = call(base, "POST", "/api/v1/auth/password-reset", {"email": address})
    assert status == 202, status
    _, text = wait_for_mail(maildir, address, seen)
    link = link_in(text, "/account/reset-password")
    open_page(dev, link)
    new = "chosen in a browser, long enough"
    done = submit(dev, {"password": new, "password_again": new})
    screenshot(dev, out, "reset-done")
    print("reset page:", done)
    assert sign_in(base, username, new)[0] == 200, "the new password signs in"
    assert sign_in(base, username, PASSWORD)[0] == 401, "the old password no longer does"
    print(f"{username}: new password set in chromium from the message; it signs in")
    return new


def change_address(base, maildir, dev, out, seen, username, password, old, new_address):
    _, token = sign_in(base, username, password)
    status, me = call(base, "PATCH", "/api/v1/me",
                      {"email": new_address, "current_password": password}, token)
    assert status == 200 and me["pending_email"] == new_address, (status, me)
    subject, notice = wait_for_mail(maildir, old, seen)
    assert new_address in notice, notice
    _, text = wait_for_mail(maildir, new_address, seen)
    open_page(dev, link_in(text, "/account/verify-email"))
    done = submit(dev, {})
    screenshot(dev, out, "address-change-done")
    print("address change page:", done)
    _, me = call(base, "GET", "/api/v1/me", token=token)
    assert me["email"] == new_address and me["pending_email"] is None, me
    print(f"{username}: address changed to {new_address} from the link in chromium "
          f"(the old address was told: {subject!r})")


def main():
    base, maildir, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    stamp = f"{int(time.time())}{os.getpid() % 1000}"
    username = f"browser{stamp}"
    address = f"{username}@example.org"
    seen = set()
    dev = DevTools()
    try:
        dev.call("Page.enable")
        confirm_sign_up(base, maildir, dev, out, seen, username, address)
        password = reset_password(base, maildir, dev, out, seen, username, address)
        change_address(base, maildir, dev, out, seen, username, password, address,
                       f"{username}@club.example")
    finally:
        dev.close()
    print("the account pages work in chromium from the message to the signed-in account")


if __name__ == "__main__":
    main()
