package io.queenkv.node.kv;

import static io.queenkv.node.kv.Kv.FOREVER;
import static io.queenkv.node.kv.Kv.OTHER_TENANT;
import static io.queenkv.node.kv.Kv.SEC;
import static io.queenkv.node.kv.Kv.T0;
import static io.queenkv.node.kv.Kv.TENANT;
import static io.queenkv.node.kv.Kv.check;
import static io.queenkv.node.kv.Kv.get;
import static io.queenkv.node.kv.Kv.getMany;
import static io.queenkv.node.kv.Kv.getPrefix;
import static io.queenkv.node.kv.Kv.incr;
import static io.queenkv.node.kv.Kv.json;
import static io.queenkv.node.kv.Kv.put;
import static io.queenkv.node.kv.Kv.required;
import static io.queenkv.node.kv.Kv.ttl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import io.queenkv.node.kv.Outcome.Completed;
import io.queenkv.node.kv.Outcome.IdempotencyKeyReused;
import io.queenkv.node.kv.Outcome.PreconditionFailed;
import io.queenkv.node.kv.Result.GetManyResult;
import io.queenkv.node.kv.Result.GetPrefixResult;
import io.queenkv.node.kv.Result.GetResult;
import io.queenkv.node.kv.Result.ReadRow;
import io.queenkv.node.kv.Result.WriteResult;

class CodecTest {
    static final String EMOJI = "\uD83D\uDE00";

    static List<Op> everyOp() {
        return List.of(
                new Op.Get("ns", "k" + EMOJI, false),
                new Op.Get("ns", "k", true),
                new Op.GetMany("ns.2", List.of("a", "b", "a", "é"), false),
                new Op.GetMany("ns", List.of(), true),
                new Op.GetPrefix("ns", "p", null, 100, false, false),
                new Op.GetPrefix("ns", "p", "p/x", 1000, true, true),
                new Op.GetPrefix("ns", "p", "", 1, false, false),
                new Op.Put("ns", "k", JsonValue.of("{\"a\":[1,2,\"é\"]}"), new Expiry.Ttl(30), null, false),
                new Op.Put("ns", "k", JsonValue.NULL, Expiry.FOREVER, 0L, true),
                new Op.Put("ns", "k", JsonValue.of("1"), new Expiry.Ttl(Expiry.MAX_TTL_SECONDS), Long.MAX_VALUE - 1, false),
                new Op.Put("ns", "k", JsonValue.of("\"s\""), new Expiry.Ttl(1), 12345L, false),
                new Op.PutIfAbsent("ns", "k", JsonValue.of("true"), new Expiry.Ttl(5), false),
                new Op.PutIfAbsent("ns", "k", JsonValue.of("[]"), Expiry.FOREVER, true),
                new Op.Delete("ns", "k", null, false),
                new Op.Delete("ns", "k", 0L, true),
                new Op.Delete("ns", "k", 77L, false),
                new Op.Incr("ns", "k", new BigDecimal("1"), null, null, Expiry.FOREVER, false),
                new Op.Incr("ns", "k", new BigDecimal("-0.10"), new BigDecimal("-5"), new BigDecimal("1E+3"), ttl60(), true),
                new Op.Incr("ns", "k", new BigDecimal("123456789012345678901234567890.000001"), null, new BigDecimal("0"),
                        new Expiry.Ttl(2), false),
                new Op.Check("ns", "k", 0, false),
                new Op.Check("ns", "k", 99, true));
    }

    /** A TTL of 60 s (a named helper keeps the list above readable). */
    static Expiry ttl60() {
        return new Expiry.Ttl(60);
    }

    static List<Entry> everyEntry() {
        return List.of(
                new Entry.WriteCall(T0, TENANT, null, null, everyOp()),
                new Entry.WriteCall(0, OTHER_TENANT, "idem-" + EMOJI, "fingerprint", List.of(put("a", "1"))),
                new Entry.WriteCall(Long.MAX_VALUE, TENANT, "k", "f", List.of()),
                new Entry.WriteCalls(T0, List.of(new Entry.WriteCall(0, TENANT, null, null, everyOp()),
                        new Entry.WriteCall(7, OTHER_TENANT, "idem", "fingerprint", List.of(put("a", "1")))), AnswerForm.FULL),
                new Entry.WriteCalls(T0, List.of(new Entry.WriteCall(0, TENANT, "i", "f", List.of(put("a", "1")))), AnswerForm.AS_SENT),
                new Entry.Sweep(T0, 500),
                new Entry.Sweep(T0 + 1, 0),
                new Entry.ChangeSettings(T0, Settings.DEFAULTS),
                new Entry.SeedSettings(T0, Settings.DEFAULTS),
                new Entry.ChangeSettings(T0, new Settings(1, 4096, 1, Integer.MAX_VALUE - 8L, 1, Integer.MAX_VALUE)));
    }

    static List<Outcome> everyOutcome() {
        ReadRow full = new ReadRow("k" + EMOJI, JsonValue.of("{\"x\":\"é\"}"), 42, T0 + 10 * SEC, T0);
        ReadRow forever = new ReadRow("f", JsonValue.NULL, 1, Row.NEVER, T0);
        ReadRow keysOnly = new ReadRow("ko", null, Long.MAX_VALUE, Row.NEVER, 0);
        return List.of(
                new Completed(List.of()),
                new Completed(List.of(
                        new GetResult(0, "k", full),
                        new GetResult(1, "absent", null),
                        new GetManyResult(2, List.of(full, forever), List.of("m1", "m0"), false),
                        new GetManyResult(3, List.of(), List.of(), true),
                        new GetPrefixResult(4, List.of(keysOnly, forever), true, "f"),
                        new GetPrefixResult(5, List.of(), false, null),
                        new WriteResult(6, "put", true, null, "k", JsonValue.of("1"), 7),
                        new WriteResult(7, "check", true, null, "k", null, 7),
                        new WriteResult(8, "delete", true, null, "k", JsonValue.NULL, 0),
                        new WriteResult(9, "putIfAbsent", false, WriteReason.EXISTS, "k", JsonValue.of("\"w\""), 3),
                        new WriteResult(10, "delete", false, WriteReason.ABSENT, "k", JsonValue.NULL, 0),
                        new WriteResult(11, "put", false, WriteReason.VERSION, "k", JsonValue.of("2"), 5),
                        new WriteResult(12, "incr", false, WriteReason.LIMIT, "k", JsonValue.of("9.5"), 8),
                        new WriteResult(13, "incr", false, WriteReason.TYPE, "k", JsonValue.of("\"x\""), 9))),
                new PreconditionFailed(3, WriteReason.EXISTS, 12, JsonValue.of("[1]")),
                new PreconditionFailed(0, WriteReason.ABSENT, 0, JsonValue.NULL),
                new PreconditionFailed(200, WriteReason.TYPE, Long.MAX_VALUE, JsonValue.of("{}")),
                new IdempotencyKeyReused());
    }

    @Nested
    class Entries {
        @Test
        void everyEntryAndOpRoundTrips() {
            for (Entry entry : everyEntry()) assertThat(EntryCodec.decode(EntryCodec.encode(entry))).isEqualTo(entry);
        }

        @Test
        void everyOpRoundTripsOnItsOwn() {
            for (Op op : everyOp()) {
                Entry entry = new Entry.WriteCall(T0, TENANT, null, null, List.of(op));
                assertThat(EntryCodec.decode(EntryCodec.encode(entry))).as(op.toString()).isEqualTo(entry);
            }
        }

        @Test
        void decimalsKeepTheirExactValue() {
            Op.Incr incr = (Op.Incr) everyOp().get(17);
            Op.Incr back = (Op.Incr) ((Entry.WriteCall) EntryCodec.decode(
                    EntryCodec.encode(new Entry.WriteCall(T0, TENANT, null, null, List.of(incr))))).ops().get(0);
            assertThat(back.delta().toString()).isEqualTo("-0.10");
            assertThat(back.max()).isEqualTo(new BigDecimal("1E+3"));
        }

        @Test
        void stampInstantReplacesOnlyTheInstant() {
            for (Entry entry : everyEntry()) {
                byte[] encoded = EntryCodec.encode(entry);
                byte[] stamped = EntryCodec.stampInstant(encoded.clone(), T0 + 12345);
                assertThat(EntryCodec.decode(stamped)).isEqualTo(entry.withInstant(T0 + 12345));
                assertThat(EntryCodec.stampInstant(stamped, entry.instant())).isEqualTo(encoded);
            }
        }

        @Test
        void aGroupIsItsCallsEncodedOneByOne() {
            Entry.WriteCall first = new Entry.WriteCall(T0, TENANT, null, null, List.of(put("a", "1")));
            Entry.WriteCall second = new Entry.WriteCall(T0 + 5, OTHER_TENANT, "idem", "f", everyOp());
            byte[] grouped = EntryCodec.group(List.of(EntryCodec.encode(first), EntryCodec.encode(second)));
            // The calls take the entry's instant, which the leader stamps.
            Entry.WriteCalls full = new Entry.WriteCalls(0, List.of(first.withInstant(0), second.withInstant(0)), AnswerForm.FULL);
            assertThat(EntryCodec.decode(grouped)).isEqualTo(full);
            assertThat(grouped).isEqualTo(EntryCodec.encode(new Entry.WriteCalls(0, List.of(first, second), AnswerForm.FULL)));
            // The leader marks a group to be answered as sent by its kind alone.
            assertThat(EntryCodec.isGroup(grouped)).isTrue();
            assertThat(EntryCodec.decode(EntryCodec.answeredAsSent(grouped.clone())))
                    .isEqualTo(new Entry.WriteCalls(0, full.calls(), AnswerForm.AS_SENT));
            assertThat(EntryCodec.isGroup(EntryCodec.encode(first))).isFalse();
            assertThatThrownBy(() -> EntryCodec.answeredAsSent(EntryCodec.encode(first))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> EntryCodec.group(List.of(EntryCodec.encode(new Entry.Sweep(T0, 1)))))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        /**
         * The leader writes grouped calls only once every member answered the format probe as this
         * version does. A node of an earlier version reads queries with the same decoder as this one
         * uses for reads, and it refuses the probe.
         */
        @Test
        void theFormatProbeIsRefusedByTheReadDecoderEarlierVersionsShare() {
            assertThatThrownBy(() -> EntryCodec.decodeQuery(EntryCodec.FORMAT_PROBE)).isInstanceOf(java.io.UncheckedIOException.class);
            assertThat(EntryCodec.isFormatProbe(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(TENANT, List.of(get("k")))))).isFalse();
            assertThat(EntryCodec.appliesWriteCalls(EntryCodec.FORMAT_PROBE_ANSWER)).isTrue();
            assertThat(EntryCodec.answersAsSent(EntryCodec.FORMAT_PROBE_ANSWER)).isTrue();
            byte[] previousVersion = {EntryCodec.FORMAT_VERSION, 5}; // what the version before answers-as-sent answers
            assertThat(EntryCodec.appliesWriteCalls(previousVersion)).isTrue();
            assertThat(EntryCodec.answersAsSent(previousVersion)).isFalse();
            assertThat(EntryCodec.appliesWriteCalls(OutcomeCodec.encode(new Completed(List.of())))).isFalse();
        }

        /**
         * A follower sends write calls for the leader's own group as a query. A leader of an earlier
         * version reads it with the read decoder and refuses it (the follower then sends an entry);
         * this version tells it apart from reads and the format probe, and takes back exactly the calls.
         */
        @Test
        void forwardedCallsAreAQueryEarlierVersionsRefuse() {
            Entry.WriteCall first = new Entry.WriteCall(0, TENANT, "\u0001forwarded 1", "\u0001forwarded", List.of(put("a", "1")));
            Entry.WriteCall second = new Entry.WriteCall(0, OTHER_TENANT, "idem", "f", everyOp());
            byte[] query = EntryCodec.forwardedCalls(List.of(EntryCodec.encode(first), EntryCodec.encode(second)));
            assertThat(EntryCodec.isForwardedCalls(query)).isTrue();
            assertThat(EntryCodec.decodeForwardedCalls(query)).containsExactly(first, second);
            assertThatThrownBy(() -> EntryCodec.decodeQuery(query)).isInstanceOf(java.io.UncheckedIOException.class);
            assertThat(EntryCodec.isFormatProbe(query)).isFalse();
            assertThat(EntryCodec.isForwardedCalls(EntryCodec.FORMAT_PROBE)).isFalse();
            byte[] read = EntryCodec.encodeQuery(new EntryCodec.ReadQuery(TENANT, List.of(get("k"))));
            assertThat(EntryCodec.isForwardedCalls(read)).isFalse();
            assertThatThrownBy(() -> EntryCodec.decodeForwardedCalls(read)).isInstanceOf(java.io.UncheckedIOException.class);
            byte[] cut = java.util.Arrays.copyOf(query, query.length - 1);
            assertThatThrownBy(() -> EntryCodec.decodeForwardedCalls(cut)).isInstanceOf(java.io.UncheckedIOException.class);
        }

        /**
         * A follower asks the leader for its applied index after the leader's read barrier. A leader
         * of an earlier version refuses the query as a read it cannot decode (the follower then relies
         * on Ratis' ReadIndex alone); this version tells the query apart from reads, forwarded calls
         * and the format probe, and reads back the index or the refusal.
         */
        @Test
        void theReadIndexQueryIsOneEarlierVersionsRefuseAndItsAnswerCarriesTheIndex() {
            byte[] query = EntryCodec.READ_INDEX_QUERY.clone();
            assertThat(EntryCodec.isReadIndexQuery(query)).isTrue();
            assertThatThrownBy(() -> EntryCodec.decodeQuery(query)).isInstanceOf(java.io.UncheckedIOException.class);
            assertThat(EntryCodec.isFormatProbe(query)).isFalse();
            assertThat(EntryCodec.isForwardedCalls(query)).isFalse();
            assertThat(EntryCodec.isReadIndexQuery(EntryCodec.FORMAT_PROBE)).isFalse();
            byte[] forwarded = EntryCodec.forwardedCalls(List.of(EntryCodec.encode(new Entry.WriteCall(0, TENANT, "k", "f", List.of(put("a", "1"))))));
            assertThat(EntryCodec.isReadIndexQuery(forwarded)).isFalse();
            assertThat(EntryCodec.isReadIndexQuery(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(TENANT, List.of(get("k")))))).isFalse();

            assertThat(EntryCodec.decodeReadIndexAnswer(EntryCodec.readIndexAnswer(0x0102030405L))).hasValue(0x0102030405L);
            assertThat(EntryCodec.decodeReadIndexAnswer(EntryCodec.readIndexRefused())).isEmpty();
            assertThatThrownBy(() -> EntryCodec.decodeReadIndexAnswer(new byte[] {1, 2})).isInstanceOf(java.io.UncheckedIOException.class);
            assertThatThrownBy(() -> EntryCodec.decodeReadIndexAnswer(new byte[] {7})).isInstanceOf(java.io.UncheckedIOException.class);
        }

        @Test
        void garbageIsRejected() {
            byte[] unknownKind = EntryCodec.encode(new Entry.Sweep(T0, 1));
            unknownKind[9] = 99;
            assertThatThrownBy(() -> EntryCodec.decode(unknownKind)).isInstanceOf(java.io.UncheckedIOException.class)
                    .hasMessageContaining("unknown entry kind 99");
            byte[] unknownVersion = EntryCodec.encode(new Entry.Sweep(T0, 1));
            unknownVersion[0] = 7;
            assertThatThrownBy(() -> EntryCodec.decode(unknownVersion)).hasMessageContaining("unknown entry format version 7");
            assertThatThrownBy(() -> EntryCodec.decode(new byte[3])).isInstanceOf(java.io.UncheckedIOException.class);
            assertThatThrownBy(() -> EntryCodec.decode(new byte[0])).isInstanceOf(java.io.UncheckedIOException.class);
        }

        @Test
        void trailingBytesAreRejected() {
            byte[] good = EntryCodec.encode(new Entry.Sweep(T0, 1));
            byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
            assertThatThrownBy(() -> EntryCodec.decode(longer)).hasMessageContaining("1 bytes after the end");
        }

        @Test
        void aLengthPastTheEndAllocatesNothing() {
            // A write call whose tenant claims 2^31-1 bytes: refused from the length, not by running out of memory.
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            bytes.write(EntryCodec.FORMAT_VERSION);
            bytes.writeBytes(new byte[8]);
            bytes.write(1); // write call
            bytes.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07});
            assertThatThrownBy(() -> EntryCodec.decode(bytes.toByteArray())).hasMessageContaining("past the end");
        }

        @Test
        void everyTruncationOfAnEntryIsRejected() {
            for (Entry entry : everyEntry()) {
                byte[] encoded = EntryCodec.encode(entry);
                for (int cut = 0; cut < encoded.length; cut++) {
                    byte[] truncated = java.util.Arrays.copyOf(encoded, cut);
                    assertThatThrownBy(() -> EntryCodec.decode(truncated)).as(entry + " cut at " + cut)
                            .isInstanceOf(java.io.UncheckedIOException.class);
                }
            }
        }
    }

    @Nested
    class Outcomes {
        @Test
        void everyOutcomeAndResultRoundTrips() {
            for (Outcome outcome : everyOutcome())
                assertThat(OutcomeCodec.decode(OutcomeCodec.encode(outcome))).isEqualTo(outcome);
        }

        @Test
        void theOutcomesOfAGroupRoundTripWithTheCallsThatCouldNotApply() {
            List<java.util.Optional<Outcome>> each = new ArrayList<>();
            for (Outcome outcome : everyOutcome()) each.add(java.util.Optional.of(outcome));
            each.add(1, java.util.Optional.empty());
            List<Entry.WriteCall> calls = each.stream().map(o -> new Entry.WriteCall(0, TENANT, null, null, everyOp())).toList();
            byte[] encoded = OutcomeCodec.encodeEach(each, calls, AnswerForm.FULL);
            assertThat(OutcomeCodec.decodeEach(encoded, calls)).isEqualTo(each);
            byte[] longer = java.util.Arrays.copyOf(encoded, encoded.length + 1);
            assertThatThrownBy(() -> OutcomeCodec.decodeEach(longer, calls)).isInstanceOf(java.io.UncheckedIOException.class);
            assertThatThrownBy(() -> OutcomeCodec.decodeEach(encoded, calls.subList(1, calls.size()))).as("one outcome per call")
                    .isInstanceOf(java.io.UncheckedIOException.class);
        }

        @Test
        void engineAnswersRoundTrip() {
            KvEngine engine = new KvEngine(Settings.DEFAULTS);
            Outcome written = engine.apply(1, new Entry.WriteCall(T0, TENANT, null, null, List.of(
                    put("a", "0.5", ttl(3)), incr("c", "0.25"), getMany("a", "c", "z"), getPrefix("a", null, 1, true),
                    check("zz", 0))));
            assertThat(OutcomeCodec.decode(OutcomeCodec.encode(written))).isEqualTo(written);
            Outcome failed = engine.apply(2, new Entry.WriteCall(T0, TENANT, null, null, List.of(required(check("a", 9)))));
            assertThat(failed).isInstanceOf(PreconditionFailed.class);
            assertThat(OutcomeCodec.decode(OutcomeCodec.encode(failed))).isEqualTo(failed);
        }

        /**
         * As sent, an answer leaves out what its call holds (op names, keys, a put's value) and decodes, with the call's ops
         * (or equal ones: a retry's), to the very answer in full; without them it is refused.
         */
        @Test
        void engineAnswersRoundTripAsSentWithTheirCallsOps() {
            KvEngine engine = new KvEngine(Settings.DEFAULTS);
            String big = "\"" + "v".repeat(4096) + "\"";
            engine.apply(1, new Entry.WriteCall(T0, TENANT, null, null, List.of(put("old", "\"was\""), put("cas", "1"), put("s", "\"x\""))));
            List<Op> ops = List.of(put("a", big, ttl(3)), Kv.putIfAbsent("b", big, FOREVER), Kv.putIfAbsent("old", big, FOREVER),
                    incr("c", "0.25"), Kv.delete("old"), Kv.delete("never"), check("zz", 0), check("cas", 9), getMany("a", "c", "z"),
                    getPrefix("a", null, 1, true), get("b"), Kv.delete("s", 0L), put("d", "null"));
            Outcome written = engine.apply(2, new Entry.WriteCall(T0, TENANT, null, null, ops));
            byte[] full = OutcomeCodec.encode(written), asSent = OutcomeCodec.encode(written, ops);

            assertThat(OutcomeCodec.isAsSent(asSent)).isTrue();
            assertThat(OutcomeCodec.isAsSent(full)).isFalse();
            List<Op> equalOps = EntryCodec.decodeQuery(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(TENANT, ops))).ops();
            assertThat(OutcomeCodec.decode(asSent, equalOps)).isEqualTo(written);
            assertThat(OutcomeCodec.decode(asSent, ops)).isEqualTo(written);
            assertThat(OutcomeCodec.decode(full, ops)).as("the full form reads either way").isEqualTo(written);
            // In full, two applied puts, a get and a getMany carry the big value; as sent only the reads do.
            assertThat(full.length).isGreaterThan(4 * 4096);
            assertThat(asSent.length).isBetween(2 * 4096, 3 * 4096);
            assertThatThrownBy(() -> OutcomeCodec.decode(asSent)).isInstanceOf(java.io.UncheckedIOException.class);
            assertThatThrownBy(() -> OutcomeCodec.decode(asSent, List.of(get("a")))).as("ops that are not the call's")
                    .isInstanceOf(java.io.UncheckedIOException.class);
            assertThatThrownBy(() -> OutcomeCodec.encode(written, List.of(get("a")))).isInstanceOf(RuntimeException.class);
            for (Outcome outcome : everyOutcome())
                if (!(outcome instanceof Completed)) assertThat(OutcomeCodec.decode(OutcomeCodec.encode(outcome, ops), ops)).isEqualTo(outcome);
        }
    }

    @Nested
    class Snapshots {
        final Settings committed = new Settings(100, 500, 1000, 1 << 20, 7, 9);
        final Settings seed = new Settings(50, 60, 70, 1 << 16, 2, 3);

        KvEngine populated() {
            KvEngine engine = new KvEngine(Settings.DEFAULTS);
            long index = 0;
            engine.apply(++index, new Entry.WriteCall(T0, TENANT, null, null, List.of(
                    put("a", "1", ttl(10)), put("b", "\"two\"", FOREVER), put("k" + EMOJI, "{\"é\":null}", ttl(100)),
                    put("k\uE000", "null", FOREVER), incr("n", "0.1"))));
            engine.apply(++index, new Entry.WriteCall(T0, OTHER_TENANT, null, null, List.of(
                    put("a", "\"other\"", ttl(5)), Kv.inNs("second", put("a", "3")))));
            engine.apply(++index, new Entry.ChangeSettings(T0 + SEC, committed));
            engine.apply(++index, new Entry.WriteCall(T0 + 2 * SEC, TENANT, "idem-1", "fp-1", List.of(incr("n", "0.2"))));
            engine.apply(++index, new Entry.WriteCall(T0 + 3 * SEC, OTHER_TENANT, "idem-1", "fp-x",
                    List.of(required(check("zz", 4)))));
            // Exercise delete and a version the snapshot must not reuse.
            engine.apply(++index, new Entry.WriteCall(T0 + 4 * SEC, TENANT, null, null, List.of(put("gone", "1"))));
            engine.apply(++index, new Entry.WriteCall(T0 + 4 * SEC, TENANT, null, null, List.of(Kv.delete("gone"))));
            return engine;
        }

        byte[] snapshot(KvEngine engine) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            SnapshotCodec.write(engine, out);
            return out.toByteArray();
        }

        List<Op> reads() {
            List<Op> ops = new ArrayList<>();
            for (String k : List.of("a", "b", "n", "gone", "k" + EMOJI, "k\uE000", "zz")) ops.add(get(k));
            ops.add(getMany("zz", "n", "a", "b", "k" + EMOJI, "k\uE000"));
            ops.add(getPrefix("k"));
            ops.add(getPrefix("a", null, 1000, true));
            ops.add(Kv.inNs("second", getPrefix("a")));
            return ops;
        }

        void assertSameAnswers(KvEngine expected, KvEngine actual, long now) {
            for (String tenant : List.of(TENANT, OTHER_TENANT))
                assertThat(actual.read(tenant, reads(), now)).isEqualTo(expected.read(tenant, reads(), now));
        }

        /**
         * The reader buffers ahead of what it hands out, also past the body into the checksum: read
         * through a source that answers a few bytes at a time, with values larger than its buffer.
         */
        @Test
        void aSnapshotReadInDribsWithValuesLargerThanTheBufferRoundTrips() throws IOException {
            KvEngine original = populated();
            String big = "\"" + "x".repeat(200_000) + "\"";
            List<Op> puts = new ArrayList<>();
            for (int i = 0; i < 3; i++) puts.add(put("big" + i, big, FOREVER));
            for (int i = 0; i < 2_000; i++) puts.add(put("small" + i, Integer.toString(i), FOREVER));
            original.apply(100, new Entry.WriteCall(T0 + 5 * SEC, TENANT, null, null, puts));
            byte[] bytes = snapshot(original);
            assertThat(bytes.length).as("the large values are in it").isGreaterThan(600_000);
            InputStream dribs = new java.io.FilterInputStream(new ByteArrayInputStream(bytes)) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return super.read(b, off, Math.min(len, 7));
                }
            };

            KvEngine restored = SnapshotCodec.read(dribs, seed);

            assertSameAnswers(original, restored, T0 + 5 * SEC);
            List<Op> bigReads = List.of(get("big0"), get("big2"), get("small1999"));
            assertThat(restored.read(TENANT, bigReads, T0 + 5 * SEC)).isEqualTo(original.read(TENANT, bigReads, T0 + 5 * SEC));
            assertThat(snapshot(restored)).isEqualTo(bytes);
        }

        /**
         * Answers recorded as sent (the leader marks grouped entries so once every member reads them) make the snapshot
         * format 2, which copies each record by its length; without any, it stays format 1, which earlier versions read.
         * A retry replays the recorded answer with its own (equal) ops, before and after the round trip.
         */
        @Test
        void answersRecordedAsSentRoundTripInFormatTwoAndReplayWithTheRetrysOps() throws IOException {
            KvEngine original = populated();
            assertThat(java.nio.ByteBuffer.wrap(snapshot(original)).getInt(4)).as("no answer as sent: format 1").isEqualTo(1);
            String big = "\"" + "v".repeat(10_000) + "\"";
            Entry.WriteCall call = new Entry.WriteCall(T0 + 5 * SEC, TENANT, "idem-big", "fp-big", List.of(put("big", big), incr("n", "1")));
            Outcome first = original.apply(100, call, AnswerForm.AS_SENT);
            byte[] bytes = snapshot(original);
            assertThat(java.nio.ByteBuffer.wrap(bytes).getInt(4)).isEqualTo(2);
            assertThat(bytes.length).as("the value once, in its row; not again in the record").isBetween(10_000, 20_000);

            KvEngine restored = SnapshotCodec.read(new ByteArrayInputStream(bytes), seed);
            assertSameAnswers(original, restored, T0 + 5 * SEC);
            Entry.WriteCall retry = new Entry.WriteCall(T0 + 6 * SEC, TENANT, "idem-big", "fp-big",
                    EntryCodec.decodeQuery(EntryCodec.encodeQuery(new EntryCodec.ReadQuery(TENANT, call.ops()))).ops());
            assertThat(restored.apply(101, retry, AnswerForm.AS_SENT)).isEqualTo(first);
            assertThat(original.apply(101, retry, AnswerForm.FULL)).isEqualTo(first);
            assertThat(snapshot(restored)).isEqualTo(snapshot(original));
        }

        @Test
        void aRestoredEngineAnswersIdenticallyAndContinues() throws IOException {
            KvEngine original = populated();
            KvEngine restored = SnapshotCodec.read(new ByteArrayInputStream(snapshot(original)), seed);

            assertThat(restored.settings()).isEqualTo(committed);
            assertThat(restored.settingsIndex()).isEqualTo(3);
            assertThat(restored.lastInstant()).isEqualTo(original.lastInstant());
            assertThat(restored.keyCount()).isEqualTo(original.keyCount()).isEqualTo(7);
            assertThat(restored.valueBytes()).isEqualTo(original.valueBytes());
            for (long now : new long[] {T0, T0 + 5 * SEC, T0 + 10 * SEC, T0 + 1000 * SEC})
                assertSameAnswers(original, restored, now);

            // Both go on identically: versions continue (not reused), idempotency records answer, sweeps find due rows.
            List<Entry> more = List.of(
                    new Entry.WriteCall(T0 + 5 * SEC, TENANT, null, null, List.of(put("gone", "2"), incr("n", "1"))),
                    new Entry.WriteCall(T0 + 5 * SEC, TENANT, "idem-1", "fp-1", List.of(incr("n", "0.2"))),
                    new Entry.WriteCall(T0 + 5 * SEC, TENANT, "idem-1", "fp-other", List.of(incr("n", "0.2"))),
                    new Entry.WriteCall(T0 + 5 * SEC, OTHER_TENANT, "idem-1", "fp-x", List.of(required(check("zz", 4)))),
                    new Entry.Sweep(T0 + 20 * SEC, 1),
                    new Entry.WriteCall(T0 + 20 * SEC, TENANT, null, null, List.of(Kv.putIfAbsent("a", "5", FOREVER))),
                    new Entry.Sweep(T0 + 20 * SEC, 100));
            long index = 100;
            for (Entry entry : more) {
                index++;
                Outcome a = original.apply(index, entry);
                Outcome b = restored.apply(index, entry);
                assertThat(b).as(entry.toString()).isEqualTo(a);
                assertThat(restored.keyCount()).isEqualTo(original.keyCount());
                assertThat(restored.valueBytes()).isEqualTo(original.valueBytes());
            }
            Entry fresh = new Entry.WriteCall(T0 + 20 * SEC, TENANT, null, null, List.of(put("fresh", "1")));
            original.apply(++index, fresh);
            WriteResult put = (WriteResult) ((Completed) restored.apply(index, fresh)).results().get(0);
            assertThat(put.version()).isEqualTo(13);
            assertSameAnswers(original, restored, T0 + 20 * SEC);
            // Both recorded retries answered without applying: n = 0.1 + 0.2 + 1.
            assertThat(((GetResult) restored.read(TENANT, List.of(get("n")), T0 + 20 * SEC).results().get(0)).row().value())
                    .isEqualTo(json("1.3"));
            // Idempotency records are forgotten on schedule after a restore as well.
            Entry late = new Entry.WriteCall(T0 + 2 * SEC + KvEngine.IDEMPOTENCY_RETENTION_MICROS, TENANT, "idem-1", "fp-other",
                    List.of(incr("n", "1")));
            assertThat(restored.apply(++index, late)).isEqualTo(original.apply(index, late)).isInstanceOf(Completed.class);
        }

        @Test
        void aSnapshotOfASnapshotIsTheSameBytes() throws IOException {
            KvEngine original = populated();
            byte[] first = snapshot(original);
            byte[] second = snapshot(SnapshotCodec.read(new ByteArrayInputStream(first), seed));
            assertThat(second).hasSameSizeAs(first);
            assertSameAnswers(original, SnapshotCodec.read(new ByteArrayInputStream(second), seed), T0);
        }

        @Test
        void withoutCommittedSettingsTheSeedIsInForce() throws IOException {
            KvEngine fresh = new KvEngine(Settings.DEFAULTS);
            fresh.apply(1, new Entry.WriteCall(T0, TENANT, null, null, List.of(put("a", "1"))));
            KvEngine restored = SnapshotCodec.read(new ByteArrayInputStream(snapshot(fresh)), seed);
            assertThat(restored.settingsIndex()).isZero();
            assertThat(restored.settings()).isEqualTo(seed);
            assertSameAnswers(fresh, restored, T0);
        }

        @Test
        void anEmptyEngineRoundTrips() throws IOException {
            KvEngine restored = SnapshotCodec.read(new ByteArrayInputStream(snapshot(new KvEngine(seed))), Settings.DEFAULTS);
            assertThat(restored.keyCount()).isZero();
            assertThat(restored.lastInstant()).isZero();
            Outcome first = restored.apply(1, new Entry.WriteCall(T0, TENANT, null, null, List.of(put("a", "1"))));
            assertThat(((WriteResult) ((Completed) first).results().get(0)).version()).isEqualTo(1);
        }

        @Test
        void aCorruptedByteIsRefused() throws IOException {
            byte[] good = snapshot(populated());
            for (int position : new int[] {0, 5, 9, 20, good.length / 2, good.length - 20, good.length - 9, good.length - 1}) {
                byte[] bad = good.clone();
                bad[position] ^= 0x01;
                assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(bad), seed))
                        .as("flipped byte at %d of %d", position, good.length).isInstanceOf(IOException.class);
            }
        }

        @Test
        void everySingleByteCorruptionIsRefusedWithAnIOException() throws IOException {
            // ASCII content only, so no corrupted length can ask for gigabytes.
            KvEngine engine = new KvEngine(Settings.DEFAULTS);
            engine.apply(1, new Entry.WriteCall(T0, TENANT, "i", "f", List.of(put("a", "1", ttl(10)), put("b", "\"x\"", FOREVER),
                    incr("c", "2"), get("a"), getMany("a", "q"), getPrefix("a"))));
            engine.apply(2, new Entry.WriteCall(T0, TENANT, "j", "g", List.of(required(check("a", 7)))));
            engine.apply(3, new Entry.ChangeSettings(T0, committed));
            byte[] good = snapshot(engine);
            for (int position = 0; position < good.length; position++) {
                for (int mask : new int[] {0x01, 0x80, 0xFF}) {
                    byte[] bad = good.clone();
                    bad[position] ^= (byte) mask;
                    assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(bad), seed))
                            .as("byte %d of %d xor %x", position, good.length, mask).isInstanceOf(IOException.class);
                }
            }
        }

        @Test
        void aTruncatedSnapshotIsRefused() throws IOException {
            byte[] good = snapshot(populated());
            for (int length : new int[] {0, 4, 30, good.length / 2, good.length - 1}) {
                byte[] cut = java.util.Arrays.copyOf(good, length);
                assertThatThrownBy(() -> SnapshotCodec.read(new ByteArrayInputStream(cut), seed)).isInstanceOf(IOException.class);
            }
        }
    }
}
