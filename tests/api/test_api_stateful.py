"""A hypothesis state machine drives one duo game through HTTP (docs/protocol.md §9-§10):
moves, retries with the same Idempotency-Key, stale versions, out-of-turn and malformed moves, in any order.

Invariants: the stored version is exactly one more per accepted move; a retry of a key the seat still
holds (its newest IDEMPOTENCY_WINDOW) gets the first answer's bytes, an older one stale_version, and
neither changes anything; every refusal leaves the stored game untouched.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from api.game import gamelog
from api.store.base import IDEMPOTENCY_WINDOW
from api.store.memory import MemoryStore
from tests.api.fixtures_api import assert_no_secrets, make_app, new_game, stored

JUNK = st.one_of(
    st.dictionaries(st.sampled_from(["type", "field", "bean", "boss", "index"]),
                    st.one_of(st.integers(-3, 9), st.sampled_from(["BL", "al", "joe", "harvest", "pay"]))),
    st.integers(), st.text(max_size=5), st.none(),
)


class ApiMachine(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.store = MemoryStore()
        self.client = make_app(self.store).test_client()
        self.game = new_game(self.client, "duo")
        self.answered: list[tuple[str, int, dict, bytes]] = []  # key, seat, body, first answer
        self.keys = 0

    def active(self) -> int:
        return stored(self.store, self.game.id)[1]["position"]["active"]

    def over(self) -> bool:
        return stored(self.store, self.game.id)[1]["position"]["phase"] == "over"

    def refused(self, resp, status: int, code: str):
        body = resp.get_json()
        assert resp.status_code == status and body["code"] == code, body

    @precondition(lambda self: not self.over())
    @rule(pick=st.integers(0, 1000))
    def play(self, pick):
        seat = self.active()
        view = self.game.get(seat).get_json()["view"]
        action = view["legal_actions"][pick % len(view["legal_actions"])]
        self.keys += 1
        key = f"key-{self.keys}"
        resp = self.game.act(seat, action, key=key)
        assert resp.status_code == 200, resp.get_json()
        answer = resp.get_json()
        assert answer["version"] == self.game.version + 1
        assert_no_secrets(answer, stored(self.store, self.game.id)[1]["position"], seat)
        self.answered.append((key, seat, {"action": action, "version": self.game.version}, resp.data))
        self.game.version = answer["version"]

    def remembered(self, key: str, seat: int) -> bool:
        """Whether the server still holds `key`: the newest IDEMPOTENCY_WINDOW keys of each seat."""
        return key in [k for k, s, _, _ in self.answered if s == seat][-IDEMPOTENCY_WINDOW:]

    @precondition(lambda self: self.answered)
    @rule(data=st.data())
    def retry(self, data):
        key, seat, body, first = data.draw(st.sampled_from(self.answered))
        before = self.store.load(self.game.id)
        resp = self.game.act(seat, body["action"], version=body["version"], key=key)
        if self.remembered(key, seat):
            assert resp.status_code == 200 and resp.data == first
        else:  # forgotten: its version has passed, so it is stale (never applied twice)
            self.refused(resp, 409, "stale_version")
            assert resp.get_json()["version"] == self.game.version
        assert self.store.load(self.game.id) == before

    @precondition(lambda self: self.answered)
    @rule(data=st.data(), junk=JUNK)
    def reuse_key_for_another_request(self, data, junk):
        key, seat, body, _ = data.draw(st.sampled_from(self.answered))
        if junk == body["action"] or not self.remembered(key, seat):
            return
        before = self.store.load(self.game.id)
        self.refused(self.game.act(seat, junk, version=body["version"], key=key), 422, "idempotency_mismatch")
        assert self.store.load(self.game.id) == before

    @precondition(lambda self: self.game.version > 2)
    @rule(back=st.integers(1, 5))
    def stale(self, back):
        before = self.store.load(self.game.id)
        seat = self.active()
        resp = self.game.act(seat, {"type": "end_phase"}, version=max(1, self.game.version - back))
        self.refused(resp, 409, "stale_version")
        assert resp.get_json()["version"] == self.game.version
        assert self.store.load(self.game.id) == before

    @precondition(lambda self: not self.over())
    @rule()
    def out_of_turn(self):
        before = self.store.load(self.game.id)
        self.refused(self.game.act(1 - self.active(), {"type": "end_phase"}), 403, "not_your_turn")
        assert self.store.load(self.game.id) == before

    @rule(junk=JUNK)
    def malformed_or_illegal(self, junk):
        before = self.store.load(self.game.id)
        seat = self.active()
        legal = self.game.get(seat).get_json()["view"]["legal_actions"]
        resp = self.game.act(seat, junk)
        if junk in legal:  # junk that happens to be a legal move is a move
            assert resp.status_code == 200, resp.get_json()
            self.game.version = resp.get_json()["version"]
            return
        assert resp.status_code in (400, 422), resp.get_json()
        assert resp.get_json()["code"] in ("invalid_action", "illegal_action")
        assert self.store.load(self.game.id) == before

    @invariant()
    def version_is_the_count_of_changes(self):
        version, _ = stored(self.store, self.game.id)
        assert version == self.game.version
        log = self.store.log_since(self.game.id, 0)
        assert [v for v, _ in log] == list(range(2, version + 1))
        joined = gamelog.parse(log[0][1])
        assert (joined.seat, joined.kind) == (1, "joined")


ApiMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=30, deadline=None,
                                        suppress_health_check=list(HealthCheck))
test_api_state_machine = ApiMachine.TestCase
