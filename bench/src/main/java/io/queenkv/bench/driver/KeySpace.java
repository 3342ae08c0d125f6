package io.queenkv.bench.driver;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The keys and values every workload uses, the same on both systems (etcd keys carry a
 * {@code bench/} prefix in place of Queen KV's namespace {@code bench}).
 *
 * <p>Value sizes are what is stored: Queen KV stores JSON, so its 256 B value is a JSON string of 254
 * characters (256 bytes of compact JSON, the unit its value limit counts), and etcd's is 256 raw bytes.
 */
public final class KeySpace {
    public static final String NAMESPACE = "bench";
    public static final String ETCD_PREFIX = "bench/";

    public static final int SMALL_VALUE_BYTES = 256;
    public static final int LARGE_VALUE_BYTES = 64 * 1024;
    /** puts write one of this many keys at random */
    public static final int PUT_KEYS = 100_000;
    /** reads read one of this many preloaded keys at random */
    public static final int READ_KEYS = 1_000;
    /** the getPrefix page reads from this many preloaded keys under {@link #PAGE_PREFIX} */
    public static final int PAGE_KEYS = 1_000;
    public static final int PAGE_SIZE = 100;
    /** 64 KiB puts write one of this many keys at random */
    public static final int LARGE_KEYS = 100;
    public static final int BATCH_OPS = 16;
    /** keys per call when data is loaded (under etcd's default --max-txn-ops of 128) */
    public static final int LOAD_BATCH = 100;
    /** calls in flight when data is loaded */
    public static final int LOAD_IN_FLIGHT = 32;

    public static final String CAS_KEY = "cas";
    public static final String COUNTER_KEY = "counter";
    public static final String PAGE_PREFIX = "page/";

    private KeySpace() {}

    public static String putKey() {
        return "put/" + ThreadLocalRandom.current().nextInt(PUT_KEYS);
    }

    public static String readKey() {
        return readKey(ThreadLocalRandom.current().nextInt(READ_KEYS));
    }

    public static String readKey(int i) {
        return String.format("read/%05d", i);
    }

    public static String pageKey(int i) {
        return String.format("%s%05d", PAGE_PREFIX, i);
    }

    public static String largeKey() {
        return "large/" + ThreadLocalRandom.current().nextInt(LARGE_KEYS);
    }

    /** The keys of one batch call: 16 distinct keys (neither system allows two writes of a key in one call). */
    public static String batchKey(int base, int i) {
        return "batch/" + (base * BATCH_OPS + i);
    }

    public static int batchBase() {
        return ThreadLocalRandom.current().nextInt(PUT_KEYS / BATCH_OPS);
    }

    /** Key {@code i} of the bulk data the memory, restart and snapshot measurements hold. */
    public static String bulkKey(int i) {
        return String.format("bulk/%07d", i);
    }

    /** {@code length} printable ASCII characters (a JSON string of them needs no escaping). */
    public static String text(int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) sb.append((char) ('a' + (i * 7 + i / 26) % 26));
        return sb.toString();
    }
}
