package io.queenkv.node.kv;

import static io.queenkv.node.kv.Kv.FOREVER;
import static io.queenkv.node.kv.Kv.NS;
import static io.queenkv.node.kv.Kv.OTHER_TENANT;
import static io.queenkv.node.kv.Kv.SEC;
import static io.queenkv.node.kv.Kv.T0;
import static io.queenkv.node.kv.Kv.TENANT;
import static io.queenkv.node.kv.Kv.check;
import static io.queenkv.node.kv.Kv.delete;
import static io.queenkv.node.kv.Kv.get;
import static io.queenkv.node.kv.Kv.getMany;
import static io.queenkv.node.kv.Kv.getPrefix;
import static io.queenkv.node.kv.Kv.incr;
import static io.queenkv.node.kv.Kv.json;
import static io.queenkv.node.kv.Kv.put;
import static io.queenkv.node.kv.Kv.putExpect;
import static io.queenkv.node.kv.Kv.putIfAbsent;
import static io.queenkv.node.kv.Kv.required;
import static io.queenkv.node.kv.Kv.str;
import static io.queenkv.node.kv.Kv.ttl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.IdempotencyKeyReused;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Refusal.Reason;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;

class KvEngineTest {
    KvEngine engine;
    long index;

    @BeforeEach
    void freshEngine() {
        engine = new KvEngine(Settings.DEFAULTS);
        index = 0;
    }

    // ---------------------------------------------------------------- harness

    Outcome callAs(String tenant, long instant, String idempotencyKey, String fingerprint, Op... ops) {
        return engine.apply(++index, new Entry.WriteCall(instant, tenant, idempotencyKey, fingerprint, List.of(ops)));
    }

    Outcome call(long instant, Op... ops) {
        return callAs(TENANT, instant, null, null, ops);
    }

    List<Result> ok(long instant, Op... ops) {
        Outcome outcome = call(instant, ops);
        assertThat(outcome).isInstanceOf(Completed.class);
        return ((Completed) outcome).results();
    }

    WriteResult write(long instant, Op op) {
        return (WriteResult) ok(instant, op).get(0);
    }

    List<Result> read(long now, Op... ops) {
        return engine.read(TENANT, List.of(ops), now).results();
    }

    ReadRow row(long now, String key) {
        return ((GetResult) read(now, get(key)).get(0)).row();
    }

    static WriteResult applied(int index, String op, String key, JsonValue value, long version) {
        return new WriteResult(index, op, true, null, key, value, version);
    }

    static WriteResult lost(int index, String op, WriteReason reason, String key, JsonValue value, long version) {
        return new WriteResult(index, op, false, reason, key, value, version);
    }

    static List<String> keys(List<ReadRow> rows) {
        return rows.stream().map(ReadRow::key).collect(Collectors.toList());
    }

    // ---------------------------------------------------------------- get

    @Nested
    class Get {
        @Test
        void foundAnswersValueVersionAndTimes() {
            write(T0, put("k", "{\"a\":1}", ttl(10)));
            assertThat(read(T0 + 1, get("k")))
                    .containsExactly(new GetResult(0, "k", new ReadRow("k", json("{\"a\":1}"), 1, T0 + 10 * SEC, T0)));
        }

        @Test
        void absentAnswersNotFoundWithTheKey() {
            assertThat(read(T0, get("nope"))).containsExactly(new GetResult(0, "nope", null));
        }

        @Test
        void nullIsAValueNotAbsence() {
            write(T0, put("k", "null"));
            assertThat(row(T0, "k")).isEqualTo(new ReadRow("k", JsonValue.NULL, 1, Row.NEVER, T0));
        }

        @Test
        void foreverKeyHasNoExpiry() {
            write(T0, put("k", "1", FOREVER));
            assertThat(row(T0 + 1_000_000 * SEC, "k").expiresAt()).isEqualTo(Row.NEVER);
        }

        @Test
        void liveWhileExpiresAtIsAfterNow() {
            write(T0, put("k", "1", ttl(10)));
            assertThat(row(T0 + 10 * SEC - 1, "k")).isNotNull();
            assertThat(row(T0 + 10 * SEC, "k")).isNull();
            assertThat(read(T0 + 10 * SEC, get("k"))).containsExactly(new GetResult(0, "k", null));
        }

        @Test
        void expiredKeyIsNotReturnedInsideAWriteCallEither() {
            write(T0, put("k", "1", ttl(1)));
            List<Result> results = ok(T0 + 2 * SEC, get("k"), put("other", "2"));
            assertThat(results.get(0)).isEqualTo(new GetResult(0, "k", null));
        }

        @Test
        void readUsesTheLastAppliedInstantWhenTheClockIsBehind() {
            write(T0, put("k", "1", ttl(1)));
            engine.apply(++index, new Entry.Sweep(T0 + 5 * SEC, 0)); // advances time, removes nothing
            assertThat(engine.keyCount()).isEqualTo(1);
            assertThat(row(T0, "k")).isNull();
        }
    }

    // ---------------------------------------------------------------- getMany

    @Nested
    class GetMany {
        static final String EMOJI = "\uD83D\uDE00"; // U+1F600, a surrogate pair in UTF-16
        static final String PRIVATE = "\uE000";

        @Test
        void rowsInKeyByteOrderAndMissingInInputOrder() {
            ok(T0, put("b", "2"), put("a", "1"), put(EMOJI, "4"), put(PRIVATE, "3"), put("z", "5"));
            GetManyResult r = (GetManyResult) read(T0, getMany("m2", EMOJI, "b", "m1", PRIVATE, "z", "a", "m0")).get(0);
            // UTF-8 byte order: U+E000 (EE 80 80) sorts before U+1F600 (F0 9F 98 80); UTF-16 order would not.
            assertThat(keys(r.rows())).containsExactly("a", "b", "z", PRIVATE, EMOJI);
            assertThat(r.missing()).containsExactly("m2", "m1", "m0");
            assertThat(r.truncated()).isFalse();
            assertThat(r.rows().get(0)).isEqualTo(new ReadRow("a", json("1"), 2, Row.NEVER, T0));
        }

        @Test
        void duplicateKeysAreAllowedAndAnsweredOnce() {
            write(T0, put("a", "1"));
            GetManyResult r = (GetManyResult) read(T0, getMany("a", "x", "a", "x")).get(0);
            assertThat(keys(r.rows())).containsExactly("a");
            assertThat(r.missing()).containsExactly("x");
        }

        @Test
        void expiredKeysAreMissing() {
            ok(T0, put("a", "1", ttl(1)), put("b", "2", ttl(100)));
            GetManyResult r = (GetManyResult) read(T0 + 2 * SEC, getMany("a", "b")).get(0);
            assertThat(keys(r.rows())).containsExactly("b");
            assertThat(r.missing()).containsExactly("a");
        }

        @Test
        void onlyTheOpsNamespace() {
            ok(T0, Kv.inNs("other", put("a", "1")));
            GetManyResult r = (GetManyResult) read(T0, getMany("a")).get(0);
            assertThat(r.rows()).isEmpty();
            assertThat(r.missing()).containsExactly("a");
        }
    }

    // ---------------------------------------------------------------- getPrefix

    @Nested
    class GetPrefix {
        @BeforeEach
        void rows() {
            ok(T0, put("a", "0"), put("ab", "1"), put("abc", "2"), put("abd", "3"), put("ac", "4"), put("b", "5"),
                    put("user:1", "6"), put("user:10", "7"), put("user:2", "8"));
        }

        @Test
        void onlyKeysUnderThePrefixInByteOrder() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("ab")).get(0);
            assertThat(keys(r.rows())).containsExactly("ab", "abc", "abd");
            assertThat(r.truncated()).isFalse();
            assertThat(r.nextAfter()).isNull();
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("user:1")).get(0)).rows()))
                    .containsExactly("user:1", "user:10");
            assertThat(((GetPrefixResult) read(T0, getPrefix("zz")).get(0)).rows()).isEmpty();
        }

        @Test
        void limitTruncatesAndNextAfterPagesOn() {
            GetPrefixResult first = (GetPrefixResult) read(T0, getPrefix("a", null, 2, false)).get(0);
            assertThat(keys(first.rows())).containsExactly("a", "ab");
            assertThat(first.truncated()).isTrue();
            assertThat(first.nextAfter()).isEqualTo("ab");
            GetPrefixResult second = (GetPrefixResult) read(T0, getPrefix("a", "ab", 2, false)).get(0);
            assertThat(keys(second.rows())).containsExactly("abc", "abd");
            assertThat(second.nextAfter()).isEqualTo("abd");
            GetPrefixResult last = (GetPrefixResult) read(T0, getPrefix("a", "abd", 2, false)).get(0);
            assertThat(keys(last.rows())).containsExactly("ac");
            assertThat(last.truncated()).isFalse();
            assertThat(last.nextAfter()).isNull();
        }

        @Test
        void aPageExactlyAsLargeAsTheLimitIsNotTruncated() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("ab", null, 3, false)).get(0);
            assertThat(keys(r.rows())).containsExactly("ab", "abc", "abd");
            assertThat(r.truncated()).isFalse();
            assertThat(r.nextAfter()).isNull();
        }

        @Test
        void afterIsExclusiveAndACursorBeforeThePrefixStartsAtThePrefix() {
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("ab", "abc", 100, false)).get(0)).rows()))
                    .containsExactly("abd");
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("ab", "a", 100, false)).get(0)).rows()))
                    .containsExactly("ab", "abc", "abd");
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("ab", "", 100, false)).get(0)).rows()))
                    .containsExactly("ab", "abc", "abd");
            assertThat(((GetPrefixResult) read(T0, getPrefix("ab", "b", 100, false)).get(0)).rows()).isEmpty();
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("ab", "abcz", 100, false)).get(0)).rows()))
                    .containsExactly("abd");
        }

        @Test
        void keysOnlyLeavesValuesOut() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("ab", null, 100, true)).get(0);
            assertThat(r.rows()).containsExactly(new ReadRow("ab", null, 2, Row.NEVER, T0),
                    new ReadRow("abc", null, 3, Row.NEVER, T0), new ReadRow("abd", null, 4, Row.NEVER, T0));
        }

        @Test
        void valuesAreReturned() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("abd")).get(0);
            assertThat(r.rows()).containsExactly(new ReadRow("abd", json("3"), 4, Row.NEVER, T0));
        }

        @Test
        void expiredRowsAreSkippedAndDoNotUseTheLimit() {
            ok(T0, put("ab", "1", ttl(1)), put("abc", "2", ttl(1)));
            GetPrefixResult r = (GetPrefixResult) read(T0 + 2 * SEC, getPrefix("ab", null, 1, false)).get(0);
            assertThat(keys(r.rows())).containsExactly("abd");
            assertThat(r.truncated()).isFalse();
        }

        @Test
        void supplementaryCharactersSortAfterThePrivateUseArea() {
            ok(T0, put("k\uD83D\uDE00", "1"), put("k\uE000", "2"), put("k\uFFFF", "3"), put("kz", "4"));
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("k")).get(0)).rows()))
                    .containsExactly("kz", "k\uE000", "k\uFFFF", "k\uD83D\uDE00");
        }

        @Test
        void otherNamespacesAreInvisible() {
            ok(T0, Kv.inNs("other", put("abz", "1")));
            assertThat(keys(((GetPrefixResult) read(T0, getPrefix("ab")).get(0)).rows()))
                    .containsExactly("ab", "abc", "abd");
            assertThat(keys(((GetPrefixResult) read(T0, Kv.inNs("other", getPrefix("ab"))).get(0)).rows()))
                    .containsExactly("abz");
        }
    }

    // ---------------------------------------------------------------- put

    @Nested
    class Put {
        @Test
        void versionsStartAtOneAndEveryAppliedPutTakesTheNext() {
            assertThat(write(T0, put("a", "1"))).isEqualTo(applied(0, "put", "a", json("1"), 1));
            assertThat(write(T0, put("a", "2"))).isEqualTo(applied(0, "put", "a", json("2"), 2));
            assertThat(write(T0, put("b", "3"))).isEqualTo(applied(0, "put", "b", json("3"), 3));
        }

        @Test
        void aPutReplacesTheLifetime() {
            write(T0, put("a", "1", ttl(5)));
            write(T0 + SEC, put("a", "2", FOREVER));
            assertThat(row(T0 + 10 * SEC, "a")).isEqualTo(new ReadRow("a", json("2"), 2, Row.NEVER, T0 + SEC));
            write(T0 + 2 * SEC, put("a", "3", ttl(5)));
            assertThat(row(T0 + 2 * SEC, "a").expiresAt()).isEqualTo(T0 + 7 * SEC);
        }

        @Test
        void expectZeroOnAnAbsentKeyApplies() {
            assertThat(write(T0, putExpect("a", "1", 0))).isEqualTo(applied(0, "put", "a", json("1"), 1));
        }

        @Test
        void expectZeroOnALiveKeyLosesWithExists() {
            write(T0, put("a", "1"));
            assertThat(write(T0, putExpect("a", "2", 0))).isEqualTo(lost(0, "put", WriteReason.EXISTS, "a", json("1"), 1));
            assertThat(row(T0, "a").value()).isEqualTo(json("1"));
        }

        @Test
        void expectZeroOnAnExpiredKeyApplies() {
            write(T0, put("a", "1", ttl(1)));
            assertThat(write(T0 + SEC, putExpect("a", "2", 0))).isEqualTo(applied(0, "put", "a", json("2"), 2));
        }

        @Test
        void expectMatchingVersionApplies() {
            write(T0, put("a", "1"));
            assertThat(write(T0, putExpect("a", "2", 1))).isEqualTo(applied(0, "put", "a", json("2"), 2));
        }

        @Test
        void expectMismatchLosesWithTheCurrentValueAndVersion() {
            write(T0, put("a", "1"));
            write(T0, put("a", "\"cur\""));
            assertThat(write(T0, putExpect("a", "3", 1)))
                    .isEqualTo(lost(0, "put", WriteReason.VERSION, "a", str("cur"), 2));
            assertThat(row(T0, "a").version()).isEqualTo(2);
        }

        @Test
        void expectOnAnAbsentKeyLosesWithAbsentNullAndZero() {
            assertThat(write(T0, putExpect("a", "1", 7))).isEqualTo(lost(0, "put", WriteReason.ABSENT, "a", JsonValue.NULL, 0));
            assertThat(row(T0, "a")).isNull();
        }

        @Test
        void expectOnAnExpiredKeyLosesWithAbsent() {
            write(T0, put("a", "1", ttl(1)));
            assertThat(write(T0 + SEC, putExpect("a", "2", 1)))
                    .isEqualTo(lost(0, "put", WriteReason.ABSENT, "a", JsonValue.NULL, 0));
        }

        @Test
        void aLostWriteTakesNoVersion() {
            write(T0, put("a", "1"));
            write(T0, putExpect("a", "2", 9));
            assertThat(write(T0, put("b", "1")).version()).isEqualTo(2);
        }
    }

    // ---------------------------------------------------------------- putIfAbsent

    @Nested
    class PutIfAbsent {
        @Test
        void absentKeyIsWritten() {
            assertThat(write(T0, putIfAbsent("a", "1", ttl(3)))).isEqualTo(applied(0, "putIfAbsent", "a", json("1"), 1));
            assertThat(row(T0, "a")).isEqualTo(new ReadRow("a", json("1"), 1, T0 + 3 * SEC, T0));
        }

        @Test
        void liveKeyLosesWithTheWinnersValueAndVersion() {
            write(T0, putIfAbsent("a", "\"winner\"", FOREVER));
            assertThat(write(T0, putIfAbsent("a", "\"loser\"", FOREVER)))
                    .isEqualTo(lost(0, "putIfAbsent", WriteReason.EXISTS, "a", str("winner"), 1));
            assertThat(row(T0, "a").value()).isEqualTo(str("winner"));
        }

        @Test
        void expiredKeyDoesNotExist() {
            write(T0, putIfAbsent("a", "1", ttl(1)));
            assertThat(write(T0 + SEC, putIfAbsent("a", "2", ttl(1))))
                    .isEqualTo(applied(0, "putIfAbsent", "a", json("2"), 2));
        }
    }

    // ---------------------------------------------------------------- delete

    @Nested
    class Delete {
        @Test
        void appliedAnswersTheDeletedValueAndItsLastVersion() {
            write(T0, put("a", "1"));
            write(T0, put("a", "\"last\""));
            assertThat(write(T0, delete("a"))).isEqualTo(applied(0, "delete", "a", str("last"), 2));
            assertThat(row(T0, "a")).isNull();
            assertThat(engine.keyCount()).isZero();
        }

        @Test
        void absentKeyLosesWithAbsent() {
            assertThat(write(T0, delete("a"))).isEqualTo(lost(0, "delete", WriteReason.ABSENT, "a", JsonValue.NULL, 0));
        }

        @Test
        void expiredKeyLosesWithAbsent() {
            write(T0, put("a", "1", ttl(1)));
            assertThat(write(T0 + SEC, delete("a"))).isEqualTo(lost(0, "delete", WriteReason.ABSENT, "a", JsonValue.NULL, 0));
        }

        @Test
        void expectZeroOnAnAbsentKeyIsAppliedWithVersionZero() {
            assertThat(write(T0, delete("a", 0))).isEqualTo(applied(0, "delete", "a", JsonValue.NULL, 0));
        }

        @Test
        void expectZeroOnALiveKeyLosesWithExists() {
            write(T0, put("a", "1"));
            assertThat(write(T0, delete("a", 0))).isEqualTo(lost(0, "delete", WriteReason.EXISTS, "a", json("1"), 1));
            assertThat(row(T0, "a")).isNotNull();
        }

        @Test
        void expectMatchingVersionDeletes() {
            write(T0, put("a", "1"));
            assertThat(write(T0, delete("a", 1))).isEqualTo(applied(0, "delete", "a", json("1"), 1));
        }

        @Test
        void expectMismatchOrAbsentLoses() {
            write(T0, put("a", "1"));
            assertThat(write(T0, delete("a", 5))).isEqualTo(lost(0, "delete", WriteReason.VERSION, "a", json("1"), 1));
            assertThat(write(T0, delete("b", 5))).isEqualTo(lost(0, "delete", WriteReason.ABSENT, "b", JsonValue.NULL, 0));
        }

        @Test
        void deleteTakesNoVersionAndReCreateGetsAFreshOne() {
            write(T0, put("a", "1"));
            write(T0, delete("a"));
            assertThat(write(T0, put("a", "2")).version()).isEqualTo(2);
        }
    }

    // ---------------------------------------------------------------- incr

    @Nested
    class Incr {
        @Test
        void absentKeyStartsAtDelta() {
            assertThat(write(T0, incr("c", "5"))).isEqualTo(applied(0, "incr", "c", json("5"), 1));
            assertThat(write(T0, incr("c", "2"))).isEqualTo(applied(0, "incr", "c", json("7"), 2));
        }

        @Test
        void negativeDeltas() {
            write(T0, incr("c", "5"));
            assertThat(write(T0, incr("c", "-7")).value()).isEqualTo(json("-2"));
            assertThat(write(T0, incr("d", "-1")).value()).isEqualTo(json("-1"));
        }

        @Test
        void decimalsAreExact() {
            write(T0, incr("c", "0.1"));
            assertThat(write(T0, incr("c", "0.2")).value()).isEqualTo(json("0.3"));
            assertThat(write(T0, incr("c", "-0.3")).value()).isEqualTo(json("0"));
            write(T0, put("p", "1.50"));
            assertThat(write(T0, incr("p", "1")).value()).isEqualTo(json("2.5"));
        }

        @Test
        void boundsApplyOnCreation() {
            assertThat(write(T0, incr("c", "5", null, "3", FOREVER)).applied()).isFalse();
            assertThat(write(T0, incr("c", "5", null, "3", FOREVER)).reason()).isEqualTo(WriteReason.LIMIT);
            assertThat(write(T0, incr("c", "-1", "0", null, FOREVER)).reason()).isEqualTo(WriteReason.LIMIT);
            assertThat(row(T0, "c")).isNull();
            assertThat(write(T0, incr("c", "3", "0", "3", FOREVER))).isEqualTo(applied(0, "incr", "c", json("3"), 1));
        }

        @Test
        void pastABoundNothingIsWrittenAndTheCurrentValueIsAnswered() {
            write(T0, incr("c", "8"));
            assertThat(write(T0, incr("c", "5", null, "10", FOREVER)))
                    .isEqualTo(lost(0, "incr", WriteReason.LIMIT, "c", json("8"), 1));
            assertThat(write(T0, incr("c", "-9", "0", null, FOREVER)))
                    .isEqualTo(lost(0, "incr", WriteReason.LIMIT, "c", json("8"), 1));
            assertThat(row(T0, "c")).isEqualTo(new ReadRow("c", json("8"), 1, Row.NEVER, T0));
            assertThat(write(T0, incr("c", "2", null, "10", FOREVER))).isEqualTo(applied(0, "incr", "c", json("10"), 2));
        }

        @Test
        void aLiveNonNumberLosesWithType() {
            ok(T0, put("s", "\"abc\""), put("n", "null"), put("o", "{\"x\":1}"), put("t", "true"), put("arr", "[1]"));
            // The value answered is the effective number, 0 for a live non-number (as Queen's server answers).
            assertThat(write(T0, incr("s", "1"))).isEqualTo(lost(0, "incr", WriteReason.TYPE, "s", json("0"), 1));
            assertThat(write(T0, incr("n", "1")).reason()).isEqualTo(WriteReason.TYPE);
            assertThat(write(T0, incr("o", "1")).reason()).isEqualTo(WriteReason.TYPE);
            assertThat(write(T0, incr("t", "1")).reason()).isEqualTo(WriteReason.TYPE);
            assertThat(write(T0, incr("arr", "1")).reason()).isEqualTo(WriteReason.TYPE);
        }

        @Test
        void anExpiredNonNumberIsReplacedByACounter() {
            write(T0, put("s", "\"abc\"", ttl(1)));
            assertThat(write(T0 + SEC, incr("s", "1"))).isEqualTo(applied(0, "incr", "s", json("1"), 2));
        }

        @Test
        void aLiveCounterKeepsItsExpiry() {
            write(T0, incr("c", "1", null, null, ttl(10)));
            assertThat(write(T0 + 5 * SEC, incr("c", "1", null, null, ttl(100))).value()).isEqualTo(json("2"));
            assertThat(row(T0 + 5 * SEC, "c")).isEqualTo(new ReadRow("c", json("2"), 2, T0 + 10 * SEC, T0 + 5 * SEC));
            write(T0 + 6 * SEC, incr("c", "1", null, null, FOREVER));
            assertThat(row(T0 + 6 * SEC, "c").expiresAt()).isEqualTo(T0 + 10 * SEC);
        }

        @Test
        void anExpiredCounterStartsAfreshWithTheOpsExpiry() {
            write(T0, incr("c", "7", null, null, ttl(10)));
            assertThat(write(T0 + 10 * SEC, incr("c", "1", null, "3", ttl(100)))).isEqualTo(applied(0, "incr", "c", json("1"), 2));
            assertThat(row(T0 + 10 * SEC, "c")).isEqualTo(new ReadRow("c", json("1"), 2, T0 + 110 * SEC, T0 + 10 * SEC));
        }

        @Test
        void aForeverCounterIsCreatedForever() {
            write(T0, incr("c", "1", null, null, FOREVER));
            assertThat(row(T0, "c").expiresAt()).isEqualTo(Row.NEVER);
        }
    }

    // ---------------------------------------------------------------- check

    @Nested
    class Check {
        @Test
        void holdsOnALiveKeyWithoutValueOrNewVersion() {
            write(T0, put("a", "1"));
            assertThat(write(T0 + SEC, check("a", 1))).isEqualTo(applied(0, "check", "a", null, 1));
            assertThat(row(T0 + SEC, "a")).isEqualTo(new ReadRow("a", json("1"), 1, Row.NEVER, T0));
            assertThat(write(T0, put("b", "1")).version()).isEqualTo(2);
        }

        @Test
        void expectZeroHoldsOnAnAbsentOrExpiredKey() {
            assertThat(write(T0, check("a", 0))).isEqualTo(applied(0, "check", "a", null, 0));
            write(T0, put("e", "1", ttl(1)));
            assertThat(write(T0 + SEC, check("e", 0))).isEqualTo(applied(0, "check", "e", null, 0));
        }

        @Test
        void losingReasons() {
            write(T0, put("a", "1"));
            assertThat(write(T0, check("a", 0))).isEqualTo(lost(0, "check", WriteReason.EXISTS, "a", json("1"), 1));
            assertThat(write(T0, check("a", 2))).isEqualTo(lost(0, "check", WriteReason.VERSION, "a", json("1"), 1));
            assertThat(write(T0, check("b", 1))).isEqualTo(lost(0, "check", WriteReason.ABSENT, "b", JsonValue.NULL, 0));
            write(T0, put("e", "1", ttl(1)));
            assertThat(write(T0 + SEC, check("e", 3))).isEqualTo(lost(0, "check", WriteReason.ABSENT, "e", JsonValue.NULL, 0));
        }
    }

    // ---------------------------------------------------------------- required

    @Nested
    class Required {
        @Test
        void aLostRequiredOpAbortsTheWholeCall() {
            ok(T0, put("a", "1", ttl(50)), put("b", "2"));
            long bytes = engine.valueBytes();
            Outcome outcome = call(T0 + SEC, put("a", "\"new\"", FOREVER), delete("b"), incr("c", "1"), put("d", "4"),
                    required(check("x", 3)));
            assertThat(outcome).isEqualTo(new PreconditionFailed(4, WriteReason.ABSENT, 0, JsonValue.NULL));
            assertThat(row(T0 + SEC, "a")).isEqualTo(new ReadRow("a", json("1"), 1, T0 + 50 * SEC, T0));
            assertThat(row(T0 + SEC, "b")).isEqualTo(new ReadRow("b", json("2"), 2, Row.NEVER, T0));
            assertThat(row(T0 + SEC, "c")).isNull();
            assertThat(row(T0 + SEC, "d")).isNull();
            assertThat(engine.keyCount()).isEqualTo(2);
            assertThat(engine.valueBytes()).isEqualTo(bytes);
            // Expiry index restored too: "a" is still due at T0 + 50 s, not forever.
            assertThat(engine.hasDueRows(T0 + 50 * SEC)).isTrue();
            engine.apply(++index, new Entry.Sweep(T0 + 50 * SEC, 10));
            assertThat(engine.keyCount()).isEqualTo(1);
        }

        @Test
        void theAnswerCarriesTheLosingReasonValueAndVersion() {
            ok(T0, put("a", "1"), put("s", "\"x\""), incr("c", "9"));
            assertThat(call(T0, put("z", "1"), required(putIfAbsent("a", "2", FOREVER))))
                    .isEqualTo(new PreconditionFailed(1, WriteReason.EXISTS, 1, json("1")));
            assertThat(call(T0, required(putExpect("a", "2", 5))))
                    .isEqualTo(new PreconditionFailed(0, WriteReason.VERSION, 1, json("1")));
            assertThat(call(T0, required(delete("nope"))))
                    .isEqualTo(new PreconditionFailed(0, WriteReason.ABSENT, 0, JsonValue.NULL));
            assertThat(call(T0, required(incr("c", "5", null, "10", FOREVER))))
                    .isEqualTo(new PreconditionFailed(0, WriteReason.LIMIT, 3, json("9")));
            assertThat(call(T0, required(incr("s", "1"))))
                    .isEqualTo(new PreconditionFailed(0, WriteReason.TYPE, 2, json("0")));
            assertThat(row(T0, "z")).isNull();
        }

        @Test
        void readsAfterTheFailedOpAreNotEvaluatedAndReadsBeforeDoNotMatter() {
            Outcome outcome = call(T0, get("a"), put("a", "1"), required(check("b", 7)), get("a"));
            assertThat(outcome).isEqualTo(new PreconditionFailed(2, WriteReason.ABSENT, 0, JsonValue.NULL));
            assertThat(row(T0, "a")).isNull();
        }

        @Test
        void aRequiredOpThatHoldsOrALostOptionalOpDoesNotAbort() {
            write(T0, put("a", "1"));
            List<Result> results = ok(T0, required(check("a", 1)), putExpect("b", "2", 4), required(put("c", "3")));
            assertThat(results).containsExactly(applied(0, "check", "a", null, 1),
                    lost(1, "put", WriteReason.ABSENT, "b", JsonValue.NULL, 0), applied(2, "put", "c", json("3"), 2));
        }

        @Test
        void anAbortedCallsVersionsAreNeverSeenAndVersionsStayUnique() {
            List<Long> seen = new ArrayList<>();
            seen.add(write(T0, put("a", "1")).version());
            assertThat(call(T0, put("a", "2"), put("b", "2"), required(check("zz", 1))))
                    .isInstanceOf(PreconditionFailed.class);
            // The aborted call's versions were never visible: the next write takes the next unused one.
            WriteResult next = write(T0, put("b", "3"));
            assertThat(next.version()).isEqualTo(2);
            seen.add(next.version());
            seen.add(write(T0, delete("a")).version()); // answers the deleted row's version, takes none
            seen.add(write(T0, put("a", "4")).version());
            seen.add(write(T0, incr("n", "1")).version());
            assertThat(call(T0, incr("n", "1"), required(putIfAbsent("a", "x", FOREVER)))).isInstanceOf(PreconditionFailed.class);
            seen.add(write(T0, incr("n", "1")).version());
            seen.add(write(T0, delete("n")).version());
            seen.add(write(T0, putIfAbsent("n", "1", FOREVER)).version());
            assertThat(seen).containsExactly(1L, 2L, 1L, 3L, 4L, 5L, 5L, 6L);
            // Every row ever written has had a distinct version.
            Set<Long> live = new HashSet<>();
            for (String k : List.of("a", "b", "n")) assertThat(live.add(row(T0, k).version())).isTrue();
            assertThat(live).containsExactlyInAnyOrder(2L, 3L, 6L);
        }
    }

    // ---------------------------------------------------------------- one call

    @Nested
    class OwnWrites {
        @Test
        void aGetBeforeAWriteSeesTheOldValueAndOneAfterSeesTheNew() {
            write(T0, put("a", "\"old\""));
            List<Result> r = ok(T0 + SEC, get("a"), put("a", "\"new\""), get("a"));
            assertThat(r.get(0)).isEqualTo(new GetResult(0, "a", new ReadRow("a", str("old"), 1, Row.NEVER, T0)));
            assertThat(r.get(2)).isEqualTo(new GetResult(2, "a", new ReadRow("a", str("new"), 2, Row.NEVER, T0 + SEC)));
        }

        @Test
        void getManyAndGetPrefixSeeTheCallsWrites() {
            write(T0, put("p1", "1"));
            List<Result> r = ok(T0, put("p2", "2"), delete("p1"), incr("p3", "3"), getMany("p1", "p2", "p3"), getPrefix("p"));
            GetManyResult many = (GetManyResult) r.get(3);
            assertThat(keys(many.rows())).containsExactly("p2", "p3");
            assertThat(many.missing()).containsExactly("p1");
            assertThat(keys(((GetPrefixResult) r.get(4)).rows())).containsExactly("p2", "p3");
        }

        @Test
        void resultsCarryTheirIndex() {
            List<Result> r = ok(T0, get("x"), put("a", "1"), getMany("a"), getPrefix("a"), check("a", 1));
            assertThat(r).extracting(Result::index).containsExactly(0, 1, 2, 3, 4);
        }
    }

    // ---------------------------------------------------------------- time

    @Nested
    class Time {
        @Test
        void anEntryStampedEarlierThanTheLastUsesTheLastInstant() {
            write(T0 + 10 * SEC, put("a", "1"));
            write(T0, put("b", "2", ttl(5)));
            assertThat(engine.lastInstant()).isEqualTo(T0 + 10 * SEC);
            assertThat(row(T0 + 10 * SEC, "b")).isEqualTo(new ReadRow("b", json("2"), 2, T0 + 15 * SEC, T0 + 10 * SEC));
        }

        @Test
        void anEarlierEntryStillSeesKeysAsExpired() {
            write(T0, put("a", "1", ttl(1)));
            write(T0 + 5 * SEC, put("b", "1"));
            assertThat(write(T0, putIfAbsent("a", "2", FOREVER)).applied()).isTrue();
        }
    }

    // ---------------------------------------------------------------- read budget

    @Nested
    class ReadBudget {
        static final int VALUE_CHARS = 60_000;
        final JsonValue big = str("x".repeat(VALUE_CHARS));
        final int fitting = (int) (KvEngine.READ_BUDGET_BYTES / big.utf8Length()); // 69

        List<String> bigKeys() {
            return IntStream.range(0, 80).mapToObj(i -> String.format("big%03d", i)).collect(Collectors.toList());
        }

        @BeforeEach
        void bigRows() {
            Op[] ops = bigKeys().stream().map(k -> new Op.Put(NS, k, big, FOREVER, null, false)).toArray(Op[]::new);
            ok(T0, ops);
        }

        @Test
        void getManyIsTruncatedWhenItCrossesTheBudget() {
            GetManyResult r = (GetManyResult) read(T0, getMany(bigKeys().toArray(String[]::new))).get(0);
            assertThat(r.rows()).hasSize(fitting);
            assertThat(keys(r.rows())).isEqualTo(bigKeys().subList(0, fitting));
            assertThat(r.truncated()).isTrue();
            assertThat(r.missing()).isEmpty();
        }

        @Test
        void getPrefixIsTruncatedWhenItCrossesTheBudget() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("big", null, 1000, false)).get(0);
            assertThat(r.rows()).hasSize(fitting);
            assertThat(r.truncated()).isTrue();
            assertThat(r.nextAfter()).isEqualTo(bigKeys().get(fitting - 1));
            GetPrefixResult rest = (GetPrefixResult) read(T0, getPrefix("big", r.nextAfter(), 1000, false)).get(0);
            assertThat(rest.rows()).hasSize(80 - fitting);
            assertThat(rest.truncated()).isFalse();
        }

        @Test
        void keysOnlyCostsNothing() {
            GetPrefixResult r = (GetPrefixResult) read(T0, getPrefix("big", null, 1000, true)).get(0);
            assertThat(r.rows()).hasSize(80);
            assertThat(r.truncated()).isFalse();
        }

        @Test
        void theBudgetIsPerCallAndSharedByItsOps() {
            List<Result> r = read(T0, getMany(bigKeys().subList(0, 60).toArray(String[]::new)), getPrefix("big", null, 1000, false));
            assertThat(((GetManyResult) r.get(0)).truncated()).isFalse();
            GetPrefixResult second = (GetPrefixResult) r.get(1);
            assertThat(second.rows()).hasSize(fitting - 60);
            assertThat(second.truncated()).isTrue();
            // A new call has a new budget.
            assertThat(((GetManyResult) read(T0, getMany(bigKeys().subList(0, 60).toArray(String[]::new))).get(0)).truncated())
                    .isFalse();
        }

        @Test
        void getsInTheSameCallUseTheBudget() {
            List<Op> ops = new ArrayList<>();
            for (String k : bigKeys().subList(0, 40)) ops.add(get(k));
            ops.add(getMany(bigKeys().subList(40, 80).toArray(String[]::new)));
            GetManyResult many = (GetManyResult) engine.read(TENANT, ops, T0).results().get(40);
            assertThat(many.rows()).hasSize(fitting - 40);
            assertThat(many.truncated()).isTrue();
        }

        @Test
        void aWriteCallsReadsHaveTheBudgetToo() {
            List<Result> r = ok(T0, put("small", "1"), getPrefix("big", null, 1000, false));
            assertThat(((GetPrefixResult) r.get(1)).truncated()).isTrue();
        }
    }

    // ---------------------------------------------------------------- sweep, settings, counters

    @Nested
    class Housekeeping {
        @Test
        void sweepRemovesAtMostMaxRowsDueRows() {
            ok(T0, put("e1", "11", ttl(1)), put("e2", "22", ttl(1)), put("e3", "333", ttl(2)), put("e4", "4", ttl(3)),
                    put("e5", "5", ttl(3)), put("later", "66", ttl(100)), put("f1", "7", FOREVER), put("f2", "\"88\"", FOREVER));
            assertThat(engine.keyCount()).isEqualTo(8);
            assertThat(engine.valueBytes()).isEqualTo(2 + 2 + 3 + 1 + 1 + 2 + 1 + 4);
            assertThat(engine.hasDueRows(T0 + SEC - 1)).isFalse();
            assertThat(engine.hasDueRows(T0 + SEC)).isTrue();

            engine.apply(++index, new Entry.Sweep(T0 + 10 * SEC, 3));
            assertThat(engine.keyCount()).isEqualTo(5);
            // The earliest-expiring rows go first.
            assertThat(engine.valueBytes()).isEqualTo(1 + 1 + 2 + 1 + 4);
            engine.apply(++index, new Entry.Sweep(T0 + 10 * SEC, 100));
            assertThat(engine.keyCount()).isEqualTo(3);
            assertThat(engine.valueBytes()).isEqualTo(2 + 1 + 4);
            assertThat(engine.hasDueRows(T0 + 10 * SEC)).isFalse();
            assertThat(keys(((GetPrefixResult) read(T0 + 10 * SEC, getPrefix("f")).get(0)).rows())).containsExactly("f1", "f2");
            assertThat(row(T0 + 10 * SEC, "later")).isNotNull();
        }

        @Test
        void sweepOnlyRemovesRowsDueAtTheEntrysInstant() {
            ok(T0, put("a", "1", ttl(5)));
            engine.apply(++index, new Entry.Sweep(T0 + 4 * SEC, 100));
            assertThat(engine.keyCount()).isEqualTo(1);
        }

        @Test
        void countersFollowOverwritesDeletesAndRenewals() {
            ok(T0, put("a", "\"abc\"", ttl(1)), put("b", "12"));
            assertThat(engine.valueBytes()).isEqualTo(7);
            write(T0, put("a", "1", FOREVER)); // overwrite drops the old due entry
            assertThat(engine.valueBytes()).isEqualTo(3);
            assertThat(engine.hasDueRows(T0 + 100 * SEC)).isFalse();
            write(T0, delete("b"));
            assertThat(engine.keyCount()).isEqualTo(1);
            assertThat(engine.valueBytes()).isEqualTo(1);
            // An expired, unswept row is still stored and replaced in place by a new write.
            write(T0, put("c", "5", ttl(1)));
            write(T0 + 2 * SEC, put("c", "66", ttl(1)));
            assertThat(engine.keyCount()).isEqualTo(2);
            assertThat(engine.valueBytes()).isEqualTo(3);
        }

        @Test
        void changeSettingsPutsThemInForceAtTheEntrysIndex() {
            assertThat(engine.settings()).isEqualTo(Settings.DEFAULTS);
            assertThat(engine.settingsIndex()).isZero();
            Settings next = new Settings(10, 20, 300, 4096, 5, 6);
            engine.apply(42, new Entry.ChangeSettings(T0, next));
            assertThat(engine.settings()).isEqualTo(next);
            assertThat(engine.settingsIndex()).isEqualTo(42);
            assertThat(engine.lastInstant()).isEqualTo(T0);
        }

        @Test
        void seedSettingsApplyOnlyWhileNoneWereEverCommitted() {
            Settings seed = new Settings(10, 20, 300, 4096, 5, 6);
            engine.apply(3, new Entry.SeedSettings(T0, seed));
            assertThat(engine.settings()).isEqualTo(seed);
            assertThat(engine.settingsIndex()).isEqualTo(3);

            Settings changed = new Settings(11, 21, 301, 4096, 5, 6);
            engine.apply(7, new Entry.ChangeSettings(T0, changed));
            // A second seed (a new leader that had not applied the change yet) changes nothing.
            engine.apply(9, new Entry.SeedSettings(T0, Settings.DEFAULTS));
            assertThat(engine.settings()).isEqualTo(changed);
            assertThat(engine.settingsIndex()).isEqualTo(7);
        }

        @Test
        void readRefusesWrites() {
            assertThatThrownBy(() -> engine.read(TENANT, List.of(put("a", "1")), T0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ---------------------------------------------------------------- idempotency

    @Nested
    class Idempotency {
        @Test
        void aRetryWithTheSameKeyAndCallReturnsTheRecordedAnswerWithoutApplying() {
            Outcome first = callAs(TENANT, T0, "key-1", "fp", incr("c", "1"));
            Outcome retry = callAs(TENANT, T0 + SEC, "key-1", "fp", incr("c", "1"));
            assertThat(retry).isEqualTo(first);
            assertThat(row(T0 + SEC, "c")).isEqualTo(new ReadRow("c", json("1"), 1, Row.NEVER, T0));
            assertThat(write(T0 + SEC, put("x", "1")).version()).isEqualTo(2);
        }

        @Test
        void aRecordedPreconditionFailureIsReturnedAgainEvenIfItWouldNowHold() {
            Outcome first = callAs(TENANT, T0, "k", "fp", required(check("a", 1)));
            assertThat(first).isInstanceOf(PreconditionFailed.class);
            write(T0, put("a", "1"));
            assertThat(callAs(TENANT, T0, "k", "fp", required(check("a", 1)))).isEqualTo(first);
        }

        @Test
        void theSameKeyWithAnotherCallIsRefusedAndNothingApplies() {
            callAs(TENANT, T0, "key-1", "fp-1", incr("c", "1"));
            assertThat(callAs(TENANT, T0, "key-1", "fp-2", incr("c", "5"), put("other", "1")))
                    .isEqualTo(new IdempotencyKeyReused());
            assertThat(row(T0, "c").value()).isEqualTo(json("1"));
            assertThat(row(T0, "other")).isNull();
            // The original record still stands.
            assertThat(callAs(TENANT, T0, "key-1", "fp-1", incr("c", "1"))).isEqualTo(
                    new Completed(List.of(applied(0, "incr", "c", json("1"), 1))));
        }

        @Test
        void recordsArePerTenant() {
            callAs(TENANT, T0, "key-1", "fp", incr("c", "1"));
            Outcome other = callAs(OTHER_TENANT, T0, "key-1", "fp", incr("c", "1"));
            assertThat(other).isEqualTo(new Completed(List.of(applied(0, "incr", "c", json("1"), 2))));
            Outcome otherDifferent = callAs(OTHER_TENANT, T0, "key-2", "fp-x", incr("c", "1"));
            assertThat(otherDifferent).isInstanceOf(Completed.class);
        }

        @Test
        void callsWithoutAKeyApplyEveryTime() {
            callAs(TENANT, T0, null, null, incr("c", "1"));
            callAs(TENANT, T0, null, null, incr("c", "1"));
            assertThat(row(T0, "c").value()).isEqualTo(json("2"));
        }

        @Test
        void recordsAreKeptForTheRetentionAndThenForgotten() {
            long retention = KvEngine.IDEMPOTENCY_RETENTION_MICROS;
            assertThat(retention).isGreaterThanOrEqualTo(10 * 60 * SEC);
            callAs(TENANT, T0, "key-1", "fp", incr("c", "1"));
            callAs(TENANT, T0 + retention - 1, "key-1", "fp", incr("c", "1"));
            assertThat(row(T0 + retention - 1, "c").value()).isEqualTo(json("1"));
            Outcome late = callAs(TENANT, T0 + retention, "key-1", "fp", incr("c", "1"));
            assertThat(late).isEqualTo(new Completed(List.of(applied(0, "incr", "c", json("2"), 2))));
            // Forgotten, the key can carry another call; that call is recorded anew.
            assertThat(callAs(TENANT, T0 + retention, "key-1", "other", incr("c", "1"))).isEqualTo(new IdempotencyKeyReused());
        }

        @Test
        void anyLaterEntryForgetsExpiredRecords() {
            callAs(TENANT, T0, "key-1", "fp", incr("c", "1"));
            engine.apply(++index, new Entry.Sweep(T0 + KvEngine.IDEMPOTENCY_RETENTION_MICROS, 10));
            // An entry stamped earlier does not bring the record back.
            Outcome again = callAs(TENANT, T0, "key-1", "fp-else", incr("c", "1"));
            assertThat(again).isInstanceOf(Completed.class);
        }
    }

    // ---------------------------------------------------------------- tenants

    @Nested
    class Tenants {
        @Test
        void anotherTenantCannotSeeOverwriteOrListKeys() {
            write(T0, put("a", "\"mine\""));
            assertThat(engine.read(OTHER_TENANT, List.of(get("a")), T0).results())
                    .containsExactly(new GetResult(0, "a", null));
            assertThat(((GetManyResult) engine.read(OTHER_TENANT, List.of(getMany("a")), T0).results().get(0)).missing())
                    .containsExactly("a");
            assertThat(((GetPrefixResult) engine.read(OTHER_TENANT, List.of(getPrefix("a")), T0).results().get(0)).rows())
                    .isEmpty();
            assertThat(callAs(OTHER_TENANT, T0, null, null, delete("a"), check("x", 0), putExpect("a", "1", 1)))
                    .isEqualTo(new Completed(List.of(lost(0, "delete", WriteReason.ABSENT, "a", JsonValue.NULL, 0),
                            applied(1, "check", "x", null, 0), lost(2, "put", WriteReason.ABSENT, "a", JsonValue.NULL, 0))));
            assertThat(callAs(OTHER_TENANT, T0, null, null, putIfAbsent("a", "\"theirs\"", FOREVER)))
                    .isEqualTo(new Completed(List.of(applied(0, "putIfAbsent", "a", str("theirs"), 2))));
            assertThat(row(T0, "a").value()).isEqualTo(str("mine"));
            assertThat(((GetPrefixResult) read(T0, getPrefix("a")).get(0)).rows()).hasSize(1);
        }
    }

    // ---------------------------------------------------------------- CallRules

    @Nested
    class Rules {
        Reason refusal(Runnable check) {
            try {
                check.run();
            } catch (Refusal r) {
                return r.reason();
            }
            return null;
        }

        @Test
        void namespacePattern() {
            for (String ok : List.of("a", "0", "a.b-c_d", "app", "x".repeat(64), "9-_."))
                assertThat(refusal(() -> CallRules.checkNamespace(0, ok))).as(ok).isNull();
            for (String bad : Arrays.asList(null, "", "A", "App", "-a", ".a", "_a", "x".repeat(65), "a b", "a/b", "ä", "a:b"))
                assertThat(refusal(() -> CallRules.checkNamespace(0, bad))).as(String.valueOf(bad)).isEqualTo(Reason.KV_BAD_NAMESPACE);
        }

        @Test
        void keyRules() {
            for (String bad : Arrays.asList(null, "", "a\0b", "\0", "\uD800", "a\uDC00", "\uDC00\uD800", "x\uD83D"))
                assertThat(refusal(() -> CallRules.checkKey(3, bad, "key"))).as(String.valueOf(bad)).isEqualTo(Reason.KV_BAD_KEY);
            for (String ok : List.of("a", " ", "a/b/c", "\uD83D\uDE00", "x".repeat(512), "é".repeat(256),
                    "€".repeat(170) + "ab", "\uD83D\uDE00".repeat(128)))
                assertThat(refusal(() -> CallRules.checkKey(0, ok, "key"))).as(ok).isNull();
            for (String big : List.of("x".repeat(513), "é".repeat(256) + "a", "é".repeat(257), "€".repeat(171),
                    "\uD83D\uDE00".repeat(128) + "a"))
                assertThat(refusal(() -> CallRules.checkKey(0, big, "key"))).as(big.length() + " chars").isEqualTo(Reason.KV_KEY_TOO_LARGE);
            assertThat(Reason.KV_KEY_TOO_LARGE.status()).isEqualTo(413);
            assertThat(Reason.KV_KEY_TOO_LARGE.error()).isEqualTo("payload_too_large");
            assertThatThrownBy(() -> CallRules.checkKey(3, "", "key")).isInstanceOf(Refusal.class)
                    .hasMessageStartingWith("op at index 3: ");
        }

        @Test
        void valueSize() {
            Settings s = new Settings(256, 1024, 10, 32L << 20, 100, 200);
            assertThat(refusal(() -> CallRules.checkValue(0, str("12345678"), s))).isNull();
            assertThat(refusal(() -> CallRules.checkValue(0, str("123456789"), s))).isEqualTo(Reason.KV_VALUE_TOO_LARGE);
            // UTF-8 bytes, not chars: "é" is two bytes.
            assertThat(refusal(() -> CallRules.checkValue(0, str("ééé"), s))).isNull();
            assertThat(refusal(() -> CallRules.checkValue(0, str("ééééé"), s))).isEqualTo(Reason.KV_VALUE_TOO_LARGE);
            assertThat(refusal(() -> CallRules.checkValue(0, str("x".repeat(65_534)), Settings.DEFAULTS))).isNull();
            assertThat(refusal(() -> CallRules.checkValue(0, str("x".repeat(65_535)), Settings.DEFAULTS)))
                    .isEqualTo(Reason.KV_VALUE_TOO_LARGE);
            assertThat(Reason.KV_VALUE_TOO_LARGE.status()).isEqualTo(413);
        }

        @Test
        void tooManyOps() {
            Settings s = new Settings(3, 1024, 100, 32L << 20, 100, 200);
            assertThat(refusal(() -> CallRules.checkCall(List.of(get("a"), get("b"), get("c")), s))).isNull();
            assertThat(refusal(() -> CallRules.checkCall(List.of(get("a"), get("b"), get("c"), get("d")), s)))
                    .isEqualTo(Reason.KV_TOO_MANY_OPS);
            List<Op> max = new ArrayList<>();
            for (int i = 0; i < 256; i++) max.add(get("k" + i));
            assertThat(refusal(() -> CallRules.checkCall(max, Settings.DEFAULTS))).isNull();
            max.add(get("one-more"));
            assertThat(refusal(() -> CallRules.checkCall(max, Settings.DEFAULTS))).isEqualTo(Reason.KV_TOO_MANY_OPS);
        }

        @Test
        void tooManyKeysCountsGetManyKeysAndGetPrefixLimit() {
            String[] keys24 = IntStream.range(0, 24).mapToObj(i -> "k" + i).toArray(String[]::new);
            List<Op> exactly = List.of(getPrefix("p", null, 1000, false), getMany(keys24));
            assertThat(refusal(() -> CallRules.checkCall(exactly, Settings.DEFAULTS))).isNull();
            List<Op> over = List.of(getPrefix("p", null, 1000, false), getMany(keys24), put("x", "1"));
            assertThat(refusal(() -> CallRules.checkCall(over, Settings.DEFAULTS))).isEqualTo(Reason.KV_TOO_MANY_KEYS);
            assertThatThrownBy(() -> CallRules.checkCall(over, Settings.DEFAULTS)).hasMessageStartingWith("op at index 2: ");
            Settings small = new Settings(256, 5, 100, 32L << 20, 100, 200);
            assertThat(refusal(() -> CallRules.checkCall(List.of(getPrefix("p", null, 6, true)), small)))
                    .isEqualTo(Reason.KV_TOO_MANY_KEYS);
            assertThat(refusal(() -> CallRules.checkCall(List.of(getPrefix("p", null, 5, true)), small))).isNull();
        }

        @Test
        void twoWritesOnOneKeyAreRefusedButReadsAreFine() {
            assertThat(refusal(() -> CallRules.checkCall(List.of(put("a", "1"), delete("a")), Settings.DEFAULTS)))
                    .isEqualTo(Reason.KV_DUPLICATE_KEY_IN_CALL);
            assertThat(refusal(() -> CallRules.checkCall(List.of(check("a", 1), incr("a", "1")), Settings.DEFAULTS)))
                    .isEqualTo(Reason.KV_DUPLICATE_KEY_IN_CALL);
            assertThat(refusal(() -> CallRules.checkCall(
                    List.of(putIfAbsent("a", "1", FOREVER), put("b", "1"), check("a", 0)), Settings.DEFAULTS)))
                    .isEqualTo(Reason.KV_DUPLICATE_KEY_IN_CALL);
            assertThat(refusal(() -> CallRules.checkCall(
                    List.of(get("a"), get("a"), put("a", "1"), getMany("a", "a"), get("a")), Settings.DEFAULTS))).isNull();
            assertThat(refusal(() -> CallRules.checkCall(List.of(put("a", "1"), Kv.inNs("other", put("a", "1"))),
                    Settings.DEFAULTS))).isNull();
        }
    }
}
