"""An atheris target: `interruption.runtime.sealing.Sealer.open` on hostile tokens.

Only `ResumeRejected` may escape. Run it with ``make fuzz``, or by hand::

    .venv/bin/python fuzz/sealer_target.py fuzz/corpus/sealer -max_total_time=60

An input's first byte picks what the rest becomes (modulo 4):

0. the token itself (decoded with ``surrogateescape``, so any text arrives);
1. the claims segment of a token signed with a key the sealer holds, so the
   fuzzer reaches past the signature: claim checks and the turn's decoding;
2. the header segment of a token signed the same way, with valid claims;
3. one claim's JSON text (the next byte picks which) in otherwise valid
   claims, signed the same way.

A forger without a key can only reach mode 0; modes 1 to 3 check that even
a key holder's malformed token is refused, not a crash. An empty first corpus
directory is filled with a sealed turn in each mode.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
from datetime import UTC, datetime

import atheris

with atheris.instrument_imports():
    from interruption import ResumeRejected
    from interruption.runtime.sealing import Sealer

from wire_examples import TURN, write_seeds

KEYS = {"old": b"\x00" * 32, "new": bytes(range(32))}
SEALER = Sealer(KEYS, "new")
NOW = datetime(2026, 1, 1, tzinfo=UTC)
HEADER = b'{"alg":"HS256","kid":"new","typ":"JWT"}'


def _b64url(raw: bytes) -> bytes:
    return base64.urlsafe_b64encode(raw).rstrip(b"=")


def _signed(header: bytes, claims: bytes) -> str:
    """A token of *header* and *claims*, signed with the active key."""
    signing_input = _b64url(header) + b"." + _b64url(claims)
    mac = hmac.new(KEYS["new"], signing_input, hashlib.sha256).digest()
    return (signing_input + b"." + _b64url(mac)).decode("ascii")


TOKEN = SEALER.seal(TURN, now=NOW)
CLAIMS = base64.urlsafe_b64decode(TOKEN.split(".")[1] + "==")
NAMES = sorted(json.loads(CLAIMS))


def _with_claim(name: str, text: bytes) -> bytes:
    """The example's claims with *name*'s value spelled as *text*."""
    others = {key: value for key, value in json.loads(CLAIMS).items() if key != name}
    return (
        json.dumps(others).encode()[:-1] + b', "' + name.encode() + b'": ' + text + b"}"
    )


def check(data: bytes) -> None:
    """Open one fuzz input as a token; fail on anything but ResumeRejected."""
    if not data:
        return
    mode, rest = data[0] % 4, data[1:]
    if mode == 0:
        token = rest.decode("utf-8", "surrogateescape")
    elif mode == 1:
        token = _signed(HEADER, rest)
    elif mode == 2:
        token = _signed(rest, CLAIMS)
    elif rest:
        token = _signed(HEADER, _with_claim(NAMES[rest[0] % len(NAMES)], rest[1:]))
    else:
        return
    try:
        SEALER.open(token, now=NOW)
    except ResumeRejected as error:
        if not error.problems:
            raise


def seeds() -> list[bytes]:
    """The sealed example turn, its claims, its header and each claim."""
    claims = json.loads(CLAIMS)
    return [
        b"\x00" + TOKEN.encode(),
        b"\x01" + CLAIMS,
        b"\x02" + HEADER,
        *(
            bytes([3, index]) + json.dumps(claims[name]).encode()
            for index, name in enumerate(NAMES)
        ),
    ]


def main() -> None:
    """Check that the seeds open, then fuzz."""
    for seed in seeds():
        token = seed[1:].decode() if seed[0] == 0 else None
        if token is not None and SEALER.open(token, now=NOW) != TURN:
            msg = "the sealed example does not open to itself"
            raise AssertionError(msg)
        check(seed)
    assert json.loads(CLAIMS)["sub"] == TURN.session
    write_seeds(sys.argv, seeds())
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
