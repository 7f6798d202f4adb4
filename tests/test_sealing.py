from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import attrs
import jwt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from interruption import (
    JSON,
    Accepts,
    ApprovalPending,
    ArgumentTypeError,
    Custom,
    InterruptedTurn,
    InvalidArgument,
    Message,
    PendingInterrupt,
    ProblemCode,
    Respond,
    Restart,
    Resume,
    ResumePolicy,
    ResumeRejected,
    Role,
    Session,
    ToolContext,
    ToolRequest,
    ToolResponse,
    tool,
    unstructure,
    validate_resume,
)
from interruption.runtime.approval import DECISION_SCHEMA, await_human
from interruption.runtime.sealing import (
    MIN_KEY_BYTES,
    SEALED_TURN_AUDIENCE,
    Opened,
    Sealer,
    spent_key,
)
from interruption.runtime.store import MemoryStore, SqliteStore, Store
from interruption.testing import ScriptedModel
from interruption.validation import ResolvedResume

from tests.strategies import BASE64URL, b64url, token_mutations, turns

NOW = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
EARLY = datetime(1990, 1, 1, tzinfo=UTC)
"""Before every moment `turns` draws: no drawn turn has expired yet."""
K1 = bytes.fromhex("8f3a" * 16)
K2 = bytes.fromhex("51c7" * 16)
K3 = bytes.fromhex("e02b" * 16)

HOUR = timedelta(hours=1)


def turn_of(**changes: Any) -> InterruptedTurn:
    """A turn pending a question (respond) and an approval (restart)."""
    ask = ToolRequest("ask_user", "c-1", {"question": "Which account?"})
    pay = ToolRequest("transfer_money", "c-2", {"to": "ACME", "amount": 125000})
    turn = InterruptedTurn(
        session="s-1",
        turn_id=3,
        messages=(
            Message.of_text(Role.USER, "pay ACME"),
            Message(Role.MODEL, (ask, pay, ToolRequest("lookup", "c-3", {}))),
        ),
        interrupts=(
            PendingInterrupt(
                id="c-1",
                kind=Custom(),
                payload={"question": "Which account?"},
                tool=ask,
                accepts=Accepts(respond={"type": "string"}),
            ),
            PendingInterrupt(
                id="c-2",
                kind=ApprovalPending("c-2"),
                payload={"tool": pay.name, "input": pay.input},
                tool=pay,
                accepts=Accepts(restart=DECISION_SCHEMA),
            ),
        ),
        completed=(ToolResponse("lookup", "c-3", {"balance": 500}),),
        created_at=NOW,
    )
    return attrs.evolve(turn, **changes)


TURN = turn_of()
SEALER = Sealer({"k1": K1}, "k1")
"""A sealer for property tests (a frozen value: safe to share)."""


@pytest.fixture(name="sealer")
def _sealer() -> Sealer:
    """A sealer with one key, ``k1``, and the default one-day lifetime."""
    return Sealer({"k1": K1}, "k1")


def rejected(sealer: Sealer, token: object, now: datetime = NOW) -> ResumeRejected:
    """The rejection of *token*; fails if it opened, or raised anything else."""
    with pytest.raises(ResumeRejected) as caught:
        sealer.open(token, now=now)  # type: ignore[arg-type]
    assert len(caught.value.problems) == 1
    return caught.value


def bad_token(sealer: Sealer, token: object, now: datetime = NOW) -> str:
    """The ``bad_token`` message for *token*; fails on any other outcome."""
    error = rejected(sealer, token, now)
    assert error.codes == (ProblemCode.BAD_TOKEN,)
    return error.problems[0].message


def claims_of(turn: InterruptedTurn = TURN, /, **changes: Any) -> dict[str, Any]:
    """Valid claims for *turn* sealed at NOW; a None change drops the claim."""
    claims: dict[str, Any] = {
        "jti": "j-1",
        "iat": int(NOW.timestamp()),
        "exp": int((NOW + HOUR).timestamp()),
        "aud": SEALED_TURN_AUDIENCE,
        "sub": turn.session,
        "tid": turn.turn_id,
        "turn": unstructure(turn),
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def forge(
    claims: dict[str, Any],
    key: bytes = K1,
    *,
    headers: dict[str, Any] | None = None,
    algorithm: str = "HS256",
) -> str:
    """Sign *claims* directly with PyJWT, as a key holder (or forger) would."""
    return jwt.encode(
        claims,
        key,
        algorithm=algorithm,
        headers={"kid": "k1"} if headers is None else headers,
    )


def segments(header: dict[str, Any], claims: dict[str, Any], signature: str) -> str:
    """A compact token spelled by hand: no library signs it."""
    parts = [json.dumps(header).encode(), json.dumps(claims).encode()]
    return ".".join([*(b64url(part) for part in parts), signature])


class TestSealer:
    def test_seal_then_open_gives_the_same_turn(self, sealer: Sealer) -> None:
        """A sealed turn opens as an equal turn."""
        assert sealer.open(sealer.seal(TURN, now=NOW), now=NOW) == TURN

    @given(turn=turns())
    def test_every_turn_round_trips(self, turn: InterruptedTurn) -> None:
        """Any interrupted turn survives seal and open unchanged."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=None)
        assert sealer.open(sealer.seal(turn, now=EARLY), now=EARLY) == turn

    def test_the_token_is_an_hs256_jwt_with_kid_and_claims(
        self, sealer: Sealer
    ) -> None:
        """The header names HS256 and the key; the claims carry the turn."""
        token = sealer.seal(TURN, now=NOW)
        assert jwt.get_unverified_header(token) == {
            "alg": "HS256",
            "kid": "k1",
            "typ": "JWT",
        }
        claims = jwt.decode(
            token,
            K1,
            algorithms=["HS256"],
            audience="interruption.sealing",
            options={"verify_exp": False},
        )
        assert set(claims) == {"jti", "iat", "exp", "aud", "sub", "tid", "turn"}
        assert claims["aud"] == "interruption.sealing"
        assert claims["iat"] == int(NOW.timestamp())
        assert claims["exp"] == int((NOW + timedelta(hours=24)).timestamp())
        assert (claims["sub"], claims["tid"]) == ("s-1", 3)
        assert claims["turn"] == unstructure(TURN)
        assert len(claims["jti"]) == 32

    def test_every_token_has_its_own_jti(self, sealer: Sealer) -> None:
        """Sealing one turn twice gives two tokens with different jti."""
        first = sealer.open_with_claims(sealer.seal(TURN, now=NOW), now=NOW)
        second = sealer.open_with_claims(sealer.seal(TURN, now=NOW), now=NOW)
        assert first.jti != second.jti
        assert first.turn == second.turn == TURN

    def test_open_with_claims_reports_jti_key_and_times(self, sealer: Sealer) -> None:
        """`open_with_claims` gives the turn, jti, key id, iat and exp."""
        token = sealer.seal(TURN, now=NOW + timedelta(microseconds=7))
        opened = sealer.open_with_claims(token, now=NOW)
        assert opened == Opened(
            TURN,
            jwt.decode(token, options={"verify_signature": False})["jti"],
            "k1",
            NOW,
            NOW + timedelta(hours=24),
        )

    def test_open_defaults_to_the_clock(self, sealer: Sealer) -> None:
        """Without *now*, seal and open read the current time."""
        assert sealer.open(sealer.seal(TURN)) == TURN

    def test_the_repr_hides_the_keys(self, sealer: Sealer) -> None:
        """No key material appears in the sealer's repr."""
        assert K1.hex() not in repr(sealer)
        assert repr(K1) not in repr(sealer)
        assert "active='k1'" in repr(sealer)

    # --- validate_resume against an opened turn ---

    def test_an_opened_turn_accepts_the_same_resume(self, sealer: Sealer) -> None:
        """validate_resume resolves a resume against the opened turn as before."""
        opened = sealer.open(sealer.seal(TURN, now=NOW), now=NOW)
        ask, pay = opened.interrupts
        resume = Resume([ask.respond("savings")], [pay.approve()])
        policy = ResumePolicy(now=lambda: NOW)
        assert validate_resume(resume, opened, policy=policy) == validate_resume(
            resume, TURN, policy=policy
        )

    @pytest.mark.parametrize(
        ("resume", "policy"),
        [
            (Resume(), ResumePolicy(now=lambda: NOW)),
            (
                Resume(restart=[Restart("ask_user", "c-1")]),
                ResumePolicy(allow_partial=True, now=lambda: NOW),
            ),
            (
                Resume([TURN.interrupts[0].respond("x")] * 2),
                ResumePolicy(now=lambda: NOW),
            ),
        ],
        ids=["missing", "answer_not_accepted", "duplicate"],
    )
    def test_an_opened_turn_rejects_with_the_same_codes(
        self, sealer: Sealer, resume: Resume, policy: ResumePolicy
    ) -> None:
        """A bad resume gets the same problems against the opened turn."""
        opened = sealer.open(sealer.seal(TURN, now=NOW), now=NOW)
        with pytest.raises(ResumeRejected) as original:
            validate_resume(resume, TURN, policy=policy)
        with pytest.raises(ResumeRejected) as sealed:
            validate_resume(resume, opened, policy=policy)
        assert sealed.value.problems == original.value.problems

    @given(turn=turns())
    def test_any_opened_turn_validates_like_the_original(
        self, turn: InterruptedTurn
    ) -> None:
        """For any turn, an empty resume gets the same problems either way."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=None)
        opened = sealer.open(sealer.seal(turn, now=EARLY), now=EARLY)
        policy = ResumePolicy(now=lambda: NOW)
        with pytest.raises(ResumeRejected) as original:
            validate_resume(Resume(), turn, policy=policy)
        with pytest.raises(ResumeRejected) as sealed:
            validate_resume(Resume(), opened, policy=policy)
        assert sealed.value.problems == original.value.problems

    # --- key rotation ---

    def test_a_token_of_an_older_key_still_opens(self) -> None:
        """After rotating to k2, tokens signed with k1 (still held) verify."""
        before = Sealer({"k1": K1}, "k1")
        after = Sealer({"k1": K1, "k2": K2}, "k2")
        token = before.seal(TURN, now=NOW)
        assert after.open_with_claims(token, now=NOW).key_id == "k1"
        assert jwt.get_unverified_header(after.seal(TURN, now=NOW))["kid"] == "k2"

    def test_a_token_of_an_unknown_key_is_refused(self, sealer: Sealer) -> None:
        """A kid this server never held is bad_token, naming the kid."""
        token = Sealer({"k3": K3}, "k3").seal(TURN, now=NOW)
        assert "'k3' (unknown or retired)" in bad_token(sealer, token)

    def test_a_token_of_a_retired_key_is_refused(self) -> None:
        """Once k1 leaves the mapping, its tokens no longer verify."""
        token = Sealer({"k1": K1, "k2": K2}, "k1").seal(TURN, now=NOW)
        assert "'k1'" in bad_token(Sealer({"k2": K2}, "k2"), token)

    def test_a_kid_naming_another_held_key_is_refused(self) -> None:
        """A token signed with k1 but labelled k2 fails k2's signature check."""
        sealer = Sealer({"k1": K1, "k2": K2}, "k1")
        token = forge(claims_of(), K1, headers={"kid": "k2"})
        assert "key 'k2'" in bad_token(sealer, token)

    @pytest.mark.parametrize(
        "headers", [{}, {"kid": 1}, {"kid": None}, {"kid": ["k1"]}], ids=str
    )
    def test_a_missing_or_malformed_kid_is_refused(
        self, sealer: Sealer, headers: dict[str, Any]
    ) -> None:
        """A token must name its key with a string kid."""
        token = segments({"alg": "HS256", **headers}, claims_of(), "c2ln")
        message = bad_token(sealer, token)
        assert "token header 'kid': expected a key id" in message

    # --- algorithms ---

    def test_alg_none_without_a_signature_is_refused(self, sealer: Sealer) -> None:
        """An unsigned ``alg: none`` token, crafted by hand, is bad_token."""
        token = segments({"alg": "none", "kid": "k1"}, claims_of(), "")
        assert "three base64url segments" in bad_token(sealer, token)

    @pytest.mark.parametrize("alg", ["none", "None", "NONE", "hs256", ""])
    def test_alg_none_with_a_signature_is_refused(
        self, sealer: Sealer, alg: str
    ) -> None:
        """``alg: none`` (any spelling) with a real signature is bad_token."""
        signature = sealer.seal(TURN, now=NOW).rsplit(".", 1)[1]
        token = segments({"alg": alg, "kid": "k1"}, claims_of(), signature)
        message = bad_token(sealer, token)
        assert f"token header 'alg': expected 'HS256', got {alg!r}" == message

    @pytest.mark.parametrize("alg", ["HS384", "HS512"])
    @pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
    def test_other_hmac_algorithms_are_refused(self, sealer: Sealer, alg: str) -> None:
        """An HS384 or HS512 token under the right key is still bad_token."""
        token = forge(claims_of(), algorithm=alg)
        assert f"got {alg!r}" in bad_token(sealer, token)

    @pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA", "PS256"])
    def test_public_key_algorithms_are_refused(self, sealer: Sealer, alg: str) -> None:
        """A token labelled RS256 (and kin) is bad_token before any key use."""
        signature = sealer.seal(TURN, now=NOW).rsplit(".", 1)[1]
        token = segments({"alg": alg, "kid": "k1"}, claims_of(), signature)
        assert f"got {alg!r}" in bad_token(sealer, token)

    def test_a_missing_alg_is_refused(self, sealer: Sealer) -> None:
        """A header without alg is bad_token."""
        token = segments({"kid": "k1"}, claims_of(), "c2ln")
        assert "got None" in bad_token(sealer, token)

    # --- expiry ---

    def test_a_token_expires_at_now_plus_max_ttl(self) -> None:
        """A token opens until exp and is ``expired`` from exp on."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=HOUR)
        token = sealer.seal(TURN, now=NOW)
        assert sealer.open(token, now=NOW + HOUR - timedelta(seconds=1)) == TURN
        error = rejected(sealer, token, NOW + HOUR)
        assert error.codes == (ProblemCode.EXPIRED,)
        assert error.problems[0].message == (
            "token expired at 2026-11-22T00:00:00Z; it is now "
            "2026-11-22T00:00:00Z (leeway 0:00:00); the turn can no longer be "
            "resumed"
        )

    def test_leeway_extends_the_deadline(self) -> None:
        """Within the leeway past exp a token still opens; past it, expired."""
        leeway = timedelta(seconds=30)
        sealer = Sealer({"k1": K1}, "k1", max_ttl=HOUR, leeway=leeway)
        token = sealer.seal(TURN, now=NOW)
        assert sealer.open(token, now=NOW + HOUR + timedelta(seconds=29)) == TURN
        late = rejected(sealer, token, NOW + HOUR + leeway)
        assert late.codes == (ProblemCode.EXPIRED,)

    def test_the_turns_expiry_caps_the_token(self) -> None:
        """A turn expiring before now + max_ttl gives the token its exp."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=HOUR)
        turn = turn_of(expires_at=NOW + timedelta(minutes=5, microseconds=900))
        opened = sealer.open_with_claims(sealer.seal(turn, now=NOW), now=NOW)
        assert opened.expires_at == NOW + timedelta(minutes=5)
        assert opened.turn == turn

    def test_max_ttl_caps_a_later_turn_expiry(self) -> None:
        """A turn expiring after now + max_ttl gets the shorter exp."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=HOUR)
        turn = turn_of(expires_at=NOW + timedelta(days=3))
        opened = sealer.open_with_claims(sealer.seal(turn, now=NOW), now=NOW)
        assert opened.expires_at == NOW + HOUR

    def test_without_max_ttl_the_turns_expiry_is_the_exp(self) -> None:
        """With max_ttl None, exp is the turn's expires_at."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=None)
        turn = turn_of(expires_at=NOW + timedelta(days=300))
        token = sealer.seal(turn, now=NOW)
        assert sealer.open_with_claims(token, now=NOW).expires_at == turn.expires_at
        error = rejected(sealer, token, NOW + timedelta(days=300))
        assert error.codes == (ProblemCode.EXPIRED,)

    def test_without_max_ttl_or_turn_expiry_there_is_no_exp(self) -> None:
        """With neither, the token has no exp and opens a century later."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=None)
        token = sealer.seal(TURN, now=NOW)
        assert "exp" not in jwt.decode(token, options={"verify_signature": False})
        later = NOW + timedelta(days=36500)
        assert sealer.open_with_claims(token, now=later).expires_at is None

    def test_a_token_without_exp_is_refused_while_max_ttl_is_set(
        self, sealer: Sealer
    ) -> None:
        """A key holder's token without exp does not open under a max_ttl."""
        token = Sealer({"k1": K1}, "k1", max_ttl=None).seal(TURN, now=NOW)
        assert bad_token(sealer, token) == "token claims: expected 'exp', got none"

    def test_an_expired_turn_still_seals_and_opens_as_expired(self) -> None:
        """Sealing an expired turn works; opening it says expired."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(expires_at=NOW - HOUR), now=NOW)
        assert rejected(sealer, token).codes == (ProblemCode.EXPIRED,)

    def test_an_altered_expired_token_is_bad_token_not_expired(
        self, sealer: Sealer
    ) -> None:
        """The signature is checked before exp: forgeries never say expired."""
        token = sealer.seal(TURN, now=NOW)
        header, _, signature = token.split(".")
        claims = jwt.decode(token, options={"verify_signature": False})
        claims["exp"] = int((NOW + timedelta(days=900)).timestamp())
        forged = f"{header}.{b64url(json.dumps(claims).encode())}.{signature}"
        assert "signature" in bad_token(sealer, forged, NOW + timedelta(days=2))

    def test_other_time_zones_are_accepted(self, sealer: Sealer) -> None:
        """*now* may be in any time zone; only the instant counts."""
        tokyo = NOW.astimezone(timezone(timedelta(hours=9)))
        assert sealer.open(sealer.seal(TURN, now=tokyo), now=tokyo) == TURN

    def test_a_naive_now_is_a_value_error(self, sealer: Sealer) -> None:
        """A naive datetime is a programming error, not a token problem."""
        naive = NOW.replace(tzinfo=None)
        with pytest.raises(ValueError, match="timezone-aware"):
            sealer.seal(TURN, now=naive)
        with pytest.raises(ValueError, match="timezone-aware"):
            sealer.open(sealer.seal(TURN, now=NOW), now=naive)

    def test_a_naive_now_is_an_invalid_argument(self, sealer: Sealer) -> None:
        """A naive datetime is the library's InvalidArgument at ``now``."""
        with pytest.raises(InvalidArgument) as caught:
            sealer.seal(TURN, now=NOW.replace(tzinfo=None))
        assert (caught.value.where, caught.value.got) == ("now", "a naive one")

    # --- forgery and garbage ---

    @given(data=st.data(), turn=turns())
    def test_every_single_mutation_is_bad_token(
        self, data: st.DataObject, turn: InterruptedTurn
    ) -> None:
        """A token changed in any one way is bad_token, never another error."""
        sealer = Sealer({"k1": K1, "k2": K2}, "k1")
        token = sealer.seal(turn, now=EARLY)
        mutation = data.draw(token_mutations(token, K1))
        with pytest.raises(ResumeRejected) as caught:
            sealer.open(mutation.token, now=EARLY)
        assert caught.value.codes == (ProblemCode.BAD_TOKEN,), mutation.what

    @given(turn=turns(), late=st.timedeltas(timedelta(0), timedelta(days=9000)))
    def test_every_token_past_exp_is_expired(
        self, turn: InterruptedTurn, late: timedelta
    ) -> None:
        """Any valid token opened at or after its exp is ``expired``."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=HOUR)
        token = sealer.seal(turn, now=EARLY)
        ends = sealer.open_with_claims(token, now=EARLY)
        assert ends.expires_at is not None
        with pytest.raises(ResumeRejected) as caught:
            sealer.open(token, now=ends.expires_at + late)
        assert caught.value.codes == (ProblemCode.EXPIRED,)

    @given(
        garbage=st.text()
        | st.from_regex(
            r"[A-Za-z0-9_-]{1,40}\.[A-Za-z0-9_-]{0,40}\.[A-Za-z0-9_-]{1,60}"
        )
        | st.lists(st.text(BASE64URL, max_size=30), min_size=3, max_size=3).map(
            ".".join
        )
    )
    def test_garbage_is_always_bad_token(self, garbage: str) -> None:
        """Random text, even shaped like a JWT, is bad_token, never a crash."""
        assert bad_token(SEALER, garbage)

    @given(payload=st.text(BASE64URL, max_size=60), signature=st.text(BASE64URL))
    def test_a_valid_header_with_garbage_is_bad_token(
        self, payload: str, signature: str
    ) -> None:
        """A correct header over a random payload and signature is bad_token."""
        header = SEALER.seal(TURN, now=NOW).split(".", 1)[0]
        assert bad_token(SEALER, f"{header}.{payload}.{signature}")

    def test_the_last_characters_must_be_canonical_base64url(
        self, sealer: Sealer
    ) -> None:
        """A signature respelled with unused low bits set is bad_token."""
        token = sealer.seal(TURN, now=NOW)
        last = token[-1]
        respelled = BASE64URL[BASE64URL.index(last) ^ 1]
        message = bad_token(sealer, token[:-1] + respelled)
        assert message.startswith("token signature: expected canonical base64url")

    @pytest.mark.parametrize(
        ("token", "expected"),
        [
            ("", "three base64url segments"),
            ("a.b", "three base64url segments"),
            ("a.b.c.d", "three base64url segments"),
            ("a b.c.d", "three base64url segments"),
            ("\ud800.a.b", "three base64url segments"),
            ("a.bbbb.cccc", "token header: expected base64url"),
            (b64url(b"not json") + ".e30.c2ln", "token header: expected a JSON object"),
            (b64url(b"[1]") + ".e30.c2ln", "expected an object, got an array"),
            (b64url(b'{"a":1,"a":2}') + ".e30.c2ln", "unique"),
            (b64url(b"[[[[1]]]]") + ".e30.c2ln", "token header: expected a JSON"),
            (b64url(b'{"alg":"HS256","kid":"k1"}') + ".e30.c2ln", "signature"),
        ],
    )
    def test_malformed_tokens_say_what_is_wrong(
        self, sealer: Sealer, token: str, expected: str
    ) -> None:
        """Each malformed token is bad_token with a message naming the flaw."""
        assert expected in bad_token(sealer, token)

    @pytest.mark.parametrize("token", [None, 12, b"a.b.c", ["a", "b", "c"]])
    def test_a_token_that_is_not_a_string_is_bad_token(
        self, sealer: Sealer, token: object
    ) -> None:
        """Bytes, numbers and None are bad_token, naming the type."""
        message = bad_token(sealer, token)
        assert message == f"token: expected a string, got {type(token).__name__}"

    def test_an_oversized_token_is_refused(self) -> None:
        """A token past max_token_chars is bad_token before any decoding."""
        sealer = Sealer({"k1": K1}, "k1", max_token_chars=100)
        message = bad_token(sealer, "a" * 101)
        assert message == "token: expected at most 100 characters, got 101"

    def test_sealing_a_turn_too_large_is_a_value_error(self) -> None:
        """Sealing refuses to issue a token that opening would refuse."""
        sealer = Sealer({"k1": K1}, "k1", max_token_chars=200)
        with pytest.raises(ValueError, match="keep this turn in a store"):
            sealer.seal(TURN, now=NOW)

    # --- claims signed by a key holder but wrong ---

    @pytest.mark.parametrize("name", ["jti", "iat", "aud", "sub", "tid", "turn"])
    def test_every_claim_is_required(self, sealer: Sealer, name: str) -> None:
        """A signed token missing a claim is bad_token naming it."""
        token = forge(claims_of(**{name: None}))
        assert bad_token(sealer, token) == f"token claims: expected {name!r}, got none"

    @pytest.mark.parametrize(
        ("changes", "expected"),
        [
            ({"jti": ""}, "token claim 'jti': expected a non-empty string, got ''"),
            ({"jti": 7}, "token claim 'jti': expected a non-empty string, got 7"),
            ({"iat": "now"}, "token claim 'iat': expected an integer, got 'now'"),
            ({"iat": 1.5}, "token claim 'iat': expected an integer, got 1.5"),
            ({"exp": "later"}, "token claim 'exp': expected an integer, got 'later'"),
            ({"exp": True}, "token claim 'exp': expected an integer, got True"),
            ({"sub": "s-2"}, "token claim 'sub': expected the turn's session 's-1'"),
            ({"tid": 4}, "token claim 'tid': expected the turn's id 3, got 4"),
            ({"tid": "3"}, "token claim 'tid': expected the turn's id 3, got '3'"),
            ({"turn": {"session": "s-1"}}, "token claim 'turn': expected an"),
            ({"turn": "turn"}, "token claim 'turn': expected an interrupted turn"),
        ],
        ids=str,
    )
    def test_signed_but_wrong_claims_are_refused(
        self, sealer: Sealer, changes: dict[str, Any], expected: str
    ) -> None:
        """Claims of the wrong type or disagreeing with the turn are bad_token."""
        assert bad_token(sealer, forge(claims_of(**changes))).startswith(expected)

    def test_a_turn_with_extra_fields_is_refused(self, sealer: Sealer) -> None:
        """The turn claim is decoded strictly: unknown fields are refused."""
        turn = {**claims_of()["turn"], "admin": True}
        assert "admin" in bad_token(sealer, forge(claims_of(turn=turn)))

    def test_a_signed_payload_that_is_not_an_object_is_refused(
        self, sealer: Sealer
    ) -> None:
        """A signed JWS whose payload is a JSON array is bad_token."""
        token = jwt.api_jws.encode(b"[1]", K1, headers={"kid": "k1"})
        assert bad_token(sealer, token).startswith("token: expected a signed JWT")

    # --- audience: the channel a token was minted for ---

    def test_a_token_opens_only_for_its_audience(self, sealer: Sealer) -> None:
        """A token sealed for one audience opens for it and is bad_token elsewhere."""
        token = sealer.seal(TURN, now=NOW, audience="app.other")
        assert sealer.open(token, now=NOW, audience="app.other") == TURN
        assert bad_token(sealer, token) == (
            "token claim 'aud': expected 'interruption.sealing', got 'app.other'; "
            "the token was minted for another channel"
        )
        default = sealer.seal(TURN, now=NOW)
        with pytest.raises(ResumeRejected) as caught:
            sealer.open_with_claims(default, now=NOW, audience="app.other")
        assert caught.value.codes == (ProblemCode.BAD_TOKEN,)

    @pytest.mark.parametrize(
        ("audience", "got"),
        [
            (["interruption.sealing"], "an array"),
            (["interruption.sealing", "app.other"], "an array"),
            ("interruption.runtime.sealing ", "'interruption.runtime.sealing '"),
            (7, "7"),
        ],
        ids=str,
    )
    def test_only_the_exact_audience_string_opens(
        self, sealer: Sealer, audience: object, got: str
    ) -> None:
        """A key holder's aud that is a list, padded or not a string is bad_token."""
        message = bad_token(sealer, forge(claims_of(aud=audience)))
        assert message.startswith(
            f"token claim 'aud': expected 'interruption.sealing', got {got};"
        )

    @pytest.mark.parametrize("audience", ["", None])
    def test_an_empty_audience_is_a_value_error(
        self, sealer: Sealer, audience: Any
    ) -> None:
        """No channel may be nameless: seal and open refuse an empty audience."""
        with pytest.raises(ValueError, match="audience: expected a non-empty string"):
            sealer.seal(TURN, now=NOW, audience=audience)
        token = sealer.seal(TURN, now=NOW)
        with pytest.raises(ValueError, match="audience: expected a non-empty string"):
            sealer.open(token, now=NOW, audience=audience)

    # --- construction ---

    @pytest.mark.parametrize(
        ("keys", "active", "options", "expected"),
        [
            ({"k1": K1}, "k2", {}, "active: expected one of the key ids, got 'k2'"),
            ({"": K1}, "", {}, "keys: expected non-empty string key ids, got ''"),
            ({1: K1}, 1, {}, "keys: expected non-empty string key ids, got 1"),
            (
                {"k1": b"short"},
                "k1",
                {},
                f"keys['k1']: expected at least {MIN_KEY_BYTES} bytes for HS256, got 5",
            ),
            ({"k1": K1}, "k1", {"algorithm": "none"}, "algorithm: expected 'HS256'"),
            ({"k1": K1}, "k1", {"algorithm": "HS512"}, "algorithm: expected 'HS256'"),
            (
                {"k1": K1},
                "k1",
                {"leeway": timedelta(seconds=-1)},
                "leeway: expected zero or more",
            ),
            (
                {"k1": K1},
                "k1",
                {"max_ttl": timedelta(0)},
                "max_ttl: expected a positive duration or None",
            ),
        ],
        ids=str,
    )
    def test_a_bad_configuration_is_a_value_error(
        self,
        keys: dict[Any, bytes],
        active: Any,
        options: dict[str, Any],
        expected: str,
    ) -> None:
        """Construction refuses unusable keys and settings, saying why."""
        with pytest.raises(ValueError, match=f"^{re.escape(expected)}"):
            Sealer(keys, active, **options)

    def test_a_bad_configuration_is_an_invalid_argument(self) -> None:
        """The refusal is the library's InvalidArgument, its pieces apart."""
        with pytest.raises(InvalidArgument) as caught:
            Sealer({"k1": K1}, "k1", leeway=timedelta(seconds=-1))
        error = caught.value
        assert type(error) is InvalidArgument
        assert (error.code, error.where, error.expected, error.got) == (
            "invalid_argument",
            "leeway",
            "zero or more",
            "-1 day, 23:59:59",
        )

    def test_a_text_key_is_a_type_error(self) -> None:
        """Keys are bytes; a str key is refused rather than encoded silently."""
        with pytest.raises(TypeError, match=r"keys\['k1'\]: expected bytes, got str"):
            Sealer({"k1": "x" * 40}, "k1")  # type: ignore[dict-item]

    def test_a_text_key_is_an_argument_type_error(self) -> None:
        """A str key is the library's ArgumentTypeError, naming the key."""
        with pytest.raises(ArgumentTypeError) as caught:
            Sealer({"k1": "x" * 40}, "k1")  # type: ignore[dict-item]
        assert (caught.value.where, caught.value.got) == ("keys['k1']", "str")

    def test_the_keys_are_copied(self) -> None:
        """Changing the caller's dict later does not change the sealer."""
        keys = {"k1": K1}
        sealer = Sealer(keys, "k1")
        token = sealer.seal(TURN, now=NOW)
        keys.clear()
        assert sealer.open(token, now=NOW) == TURN
        assert dict(sealer.keys) == {"k1": K1}


def good_answer(turn: InterruptedTurn) -> Resume:
    """A valid resume of `turn_of`: an account, and an approval."""
    ask, pay = turn.interrupts
    return Resume(respond=[ask.respond("main")], restart=[pay.approve()])


def redeem(
    sealer: Sealer,
    token: str,
    store: Store,
    resume: Resume | None = None,
    **options: Any,
) -> ResolvedResume:
    """`Sealer.redeem` for session s-1 at NOW, with a good answer by default."""
    options.setdefault("session", "s-1")
    options.setdefault("now", NOW)
    answer = resume if resume is not None else good_answer(turn_of())
    return asyncio.run(sealer.redeem(token, answer, store, **options))


def refused(
    sealer: Sealer,
    token: str,
    store: Store,
    resume: Resume | None = None,
    **options: Any,
) -> tuple[ProblemCode, ...]:
    """The problem codes `redeem` rejects with; fails if it accepts."""
    with pytest.raises(ResumeRejected) as caught:
        redeem(sealer, token, store, resume, **options)
    return caught.value.codes


@pytest.fixture(name="any_store", params=["memory", "sqlite"])
def _any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return (
        MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "t.db")
    )


class TestRedeem:
    def test_a_turn_a_session_keeps_redeems_nowhere_but_there(
        self, any_store: Store
    ) -> None:
        """A Session's turn, sealed, is bad_token at redeem; the Session answers it."""
        ran: list[str] = []

        @tool(input={"type": "object"}, output={"type": "string"})
        def pay(ctx: ToolContext[JSON], _data: JSON) -> JSON:
            ran.append(ctx.ref)
            return "paid"

        call = ToolRequest("pay", input={"to": "ACME"})
        script = [Message(Role.MODEL, (call,)), Message.of_text(Role.MODEL, "done")]
        session = Session(
            any_store,
            ScriptedModel.following_history(script),
            [pay],
            approver=await_human(),
        )
        asyncio.run(session.send("pay"))
        turn = asyncio.run(session.pending_turn())
        assert turn is not None
        (approval,) = turn.interrupts
        answer = Resume(restart=[approval.approve()])
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn)
        with pytest.raises(ResumeRejected) as refused:
            asyncio.run(sealer.redeem(token, answer, any_store, session=session.id))
        assert refused.value.codes == (ProblemCode.BAD_TOKEN,)
        assert "answer it through its Session" in str(refused.value)
        asyncio.run(session.resume(answer))
        assert ran == [approval.ref]

    def test_a_turn_resumes_once(self, any_store: Store) -> None:
        """Redeem validates and spends the turn; a replay is consumed."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(), now=NOW)
        resolved = redeem(sealer, token, any_store)
        assert resolved.turn == turn_of()
        assert len(resolved.answers) == 2
        assert refused(sealer, token, any_store) == (ProblemCode.CONSUMED,)

    def test_a_long_session_and_interrupt_id_redeem(self, any_store: Store) -> None:
        """The paused marks are fixed-size keys, however long the ids they name."""
        long_ref = "c-" + "x" * 3000
        ask = ToolRequest("ask_user", long_ref, {"question": "Which account?"})
        pending = PendingInterrupt(
            id=long_ref,
            kind=Custom(),
            payload={"question": "Which account?"},
            tool=ask,
            accepts=Accepts(respond={"type": "string"}),
        )
        turn = turn_of(
            messages=(Message(Role.MODEL, (ask,)),),
            interrupts=(pending,),
            completed=(),
        )
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn, now=NOW)
        resolved = redeem(
            sealer, token, any_store, Resume(respond=[pending.respond("main")])
        )
        assert [answer.interrupt.id for answer in resolved.answers] == [long_ref]
        events = asyncio.run(any_store.audit("s-1"))
        assert [event.kind for event in events] == ["paused", "accepted"]

    def test_one_turn_sealed_twice_resumes_once(self, any_store: Store) -> None:
        """Single use is per turn: a second token of the same turn is consumed."""
        sealer = Sealer({"k1": K1}, "k1")
        first = sealer.seal(turn_of(), now=NOW)
        again = sealer.seal(turn_of(), now=NOW + timedelta(minutes=1))
        assert first != again
        redeem(sealer, first, any_store)
        later = NOW + timedelta(minutes=1)
        assert refused(sealer, again, any_store, now=later) == (ProblemCode.CONSUMED,)

    def test_a_bad_answer_burns_nothing(self, any_store: Store) -> None:
        """A resume that fails validation leaves the turn resumable."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(), now=NOW)
        junk = Resume(respond=[Respond("ask_user", "c-1", 42)])
        assert ProblemCode.SCHEMA_VIOLATION in refused(sealer, token, any_store, junk)
        assert refused(sealer, token, any_store, Resume()) == (
            ProblemCode.MISSING,
            ProblemCode.MISSING,
        )
        assert len(redeem(sealer, token, any_store).answers) == 2

    def test_every_attempt_joins_the_audit_trail(self, any_store: Store) -> None:
        """The pause (once), a refused and an accepted redeem are audited."""
        sealer = Sealer({"k1": K1}, "k1")
        turn = turn_of()
        token = sealer.seal(turn, now=NOW)
        policy = ResumePolicy(principal="ana", now=lambda: NOW)
        junk = Resume(respond=[Respond("ask_user", "c-1", 42)])
        refused(sealer, token, any_store, junk, policy=policy)
        redeem(sealer, token, any_store, policy=policy)
        refused(sealer, token, any_store, policy=policy)
        trail = asyncio.run(any_store.audit("s-1"))
        assert [(e.kind, e.turn_id, e.principal, e.at) for e in trail] == [
            ("paused", 3, None, turn.created_at),
            ("rejected", 3, "ana", NOW),
            ("accepted", 3, "ana", NOW),
            ("rejected", 3, "ana", NOW),
        ]
        assert trail[0].pending == tuple(p.id for p in turn.interrupts)
        assert [e.codes for e in trail] == [
            (),
            ("schema_violation", "missing"),
            (),
            ("consumed",),
        ]

    def test_a_bad_token_spends_nothing(self, any_store: Store) -> None:
        """A token that does not verify is refused before the store is asked."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(), now=NOW)
        assert refused(sealer, token[:-2], any_store) == (ProblemCode.BAD_TOKEN,)
        redeem(sealer, token, any_store)

    def test_a_token_of_another_channel_spends_nothing(self, any_store: Store) -> None:
        """A genuine token minted for an adapter is bad_token; its turn is unspent."""
        sealer = Sealer({"k1": K1}, "k1")
        adapter = "interruption.adapters.openai_agents"
        token = sealer.seal(turn_of(), now=NOW, audience=adapter)
        assert refused(sealer, token, any_store) == (ProblemCode.BAD_TOKEN,)
        assert asyncio.run(any_store.spend(spent_key(turn_of()), None))

    def test_a_token_of_another_session_is_refused(self, any_store: Store) -> None:
        """The token must carry a turn of the session the caller serves."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(), now=NOW)
        codes = refused(sealer, token, any_store, session="s-2")
        assert codes == (ProblemCode.BAD_TOKEN,)
        redeem(sealer, token, any_store)

    def test_a_spent_turn_stays_spent_while_its_token_verifies(
        self, any_store: Store
    ) -> None:
        """Expiring the store inside exp + leeway forgets nothing that still opens."""
        ends = NOW + timedelta(hours=1)
        leeway = timedelta(minutes=5)
        turn = turn_of(expires_at=ends)
        sealer = Sealer({"k1": K1}, "k1", leeway=leeway)
        token = sealer.seal(turn, now=NOW)
        answer = good_answer(turn)
        # The answers' own clock stays at NOW: only the spent mark is tested.
        policy = ResumePolicy(now=lambda: NOW)
        redeem(sealer, token, any_store, answer, policy=policy)
        inside = ends + leeway / 2
        asyncio.run(any_store.expire(inside))
        codes = refused(sealer, token, any_store, answer, now=inside, policy=policy)
        assert codes == (ProblemCode.CONSUMED,)
        past = ends + leeway
        asyncio.run(any_store.expire(past))
        codes = refused(sealer, token, any_store, answer, now=past, policy=policy)
        assert codes == (ProblemCode.EXPIRED,)

    def test_a_turn_without_expiry_stays_spent_for_ever(self, any_store: Store) -> None:
        """A turn that never expires can be resealed any time: its mark never goes."""
        sealer = Sealer({"k1": K1}, "k1")
        redeem(sealer, sealer.seal(turn_of(), now=NOW), any_store)
        much_later = NOW + timedelta(days=365)
        asyncio.run(any_store.expire(much_later))
        again = sealer.seal(turn_of(), now=much_later)
        codes = refused(sealer, again, any_store, now=much_later)
        assert codes == (ProblemCode.CONSUMED,)

    def test_a_refused_principal_spends_nothing(self, any_store: Store) -> None:
        """The policy's authorizer is asked first; a refusal says nothing more."""
        sealer = Sealer({"k1": K1}, "k1")
        token = sealer.seal(turn_of(), now=NOW)

        async def alice_only(principal: str | None, _pending: object) -> bool:
            return principal == "alice"

        def policy(principal: str) -> ResumePolicy:
            return ResumePolicy(
                now=lambda: NOW, authorize=alice_only, principal=principal
            )

        codes = refused(sealer, token, any_store, Resume(), policy=policy("eve"))
        assert codes == (ProblemCode.NOT_AUTHORIZED,)
        redeem(sealer, token, any_store, policy=policy("alice"))


class TestClaimsOutOfRange:
    @pytest.mark.parametrize(
        ("claim", "value"), [("exp", 666666666661), ("iat", 10**30), ("exp", -(10**20))]
    )
    def test_dates_beyond_the_calendar_are_bad_tokens(
        self, claim: str, value: int
    ) -> None:
        """A signed exp or iat beyond the calendar is bad_token, not OverflowError."""
        sealer = Sealer({"k1": K1}, "k1", max_ttl=None)
        claims = jwt.decode(
            sealer.seal(turn_of(), now=NOW),
            options={"verify_signature": False},
        )
        claims[claim] = value
        token = jwt.encode(claims, K1, algorithm="HS256", headers={"kid": "k1"})
        with pytest.raises(ResumeRejected) as caught:
            sealer.open(token, now=NOW)
        assert caught.value.codes == (ProblemCode.BAD_TOKEN,)
