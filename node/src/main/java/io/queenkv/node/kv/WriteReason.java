package io.queenkv.node.kv;

import java.util.Locale;

/** Why a write answered {@code applied:false}. */
public enum WriteReason {
    EXISTS, ABSENT, VERSION, LIMIT, TYPE;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
