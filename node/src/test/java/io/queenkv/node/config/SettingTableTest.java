package io.queenkv.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.queenkv.node.kv.Setting;
import io.queenkv.node.kv.Settings;

/** The one table of settings: the environment takes exactly its bounds, and the README shows exactly its rows. */
class SettingTableTest {
    @ParameterizedTest
    @EnumSource(Setting.class)
    void theEnvironmentTakesTheBoundsAndRefusesOneBeyond(Setting setting) {
        assertThat(read(setting, setting.min)).isEqualTo(setting.min);
        assertThat(read(setting, setting.max)).isEqualTo(setting.max);
        for (long outside : List.of(setting.min - 1, setting.max + 1))
            assertThatThrownBy(() -> NodeConfig.fromEnv(Map.of(setting.env, Long.toString(outside))))
                    .isInstanceOf(NodeConfig.ConfigException.class)
                    .hasMessageContaining(setting.env + "=" + outside + " is outside " + setting.min + ".." + setting.max);
    }

    @Test
    void theDefaultsAreTheTablesDefaults() {
        NodeConfig c = NodeConfig.fromEnv(Map.of());
        for (Setting s : Setting.live()) assertThat(c.seedSettings().value(s)).as(s.field).isEqualTo(s.defaultValue);
        assertThat(c.snapshotEveryEntries()).isEqualTo(Setting.SNAPSHOT_EVERY.defaultValue);
        assertThat((long) c.callBounds().perTenant()).isEqualTo(Setting.MAX_CALLS_PER_TENANT.defaultValue);
        assertThat((long) c.callBounds().perNode()).isEqualTo(Setting.MAX_CALLS_PER_NODE.defaultValue);
        assertThat((long) c.httpPort()).isEqualTo(Setting.HTTP_PORT.defaultValue);
        assertThat((long) c.raftPort()).isEqualTo(Setting.RAFT_PORT.defaultValue);
        assertThat(Settings.DEFAULTS.problems()).isEmpty();
    }

    @Test
    void settingsOutsideTheTableAreProblemsNeverWrapped() {
        Settings s = Settings.DEFAULTS.with(Setting.MAX_OPS_PER_CALL, -2_147_483_649L);
        assertThat(s.maxOpsPerCall()).isEqualTo(Integer.MIN_VALUE);
        assertThat(s.problems()).singleElement().asString().contains("maxOpsPerCall must be from 1 to 10000");
    }

    @Test
    void theReadmeShowsEveryRowOfTheTable() throws IOException {
        String readme = Files.readString(readme());
        for (Setting s : Setting.values()) {
            String row = "| `" + s.field + "` | `" + s.env + "` | " + s.defaultValue + " | " + s.min + " | " + s.max + " | "
                    + s.applies.name().toLowerCase() + " |";
            assertThat(readme).as("README row for %s", s).contains(row);
        }
    }

    private static long read(Setting setting, long value) {
        NodeConfig c = NodeConfig.fromEnv(Map.of(setting.env, Long.toString(value)));
        return switch (setting) {
            case SNAPSHOT_EVERY -> c.snapshotEveryEntries();
            case MAX_CALLS_PER_TENANT -> c.callBounds().perTenant();
            case MAX_CALLS_PER_NODE -> c.callBounds().perNode();
            case HTTP_PORT -> c.httpPort();
            case RAFT_PORT -> c.raftPort();
            default -> c.seedSettings().value(setting);
        };
    }

    private static Path readme() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("README.md")) ? here.resolve("README.md") : here.getParent().resolve("README.md");
    }
}
