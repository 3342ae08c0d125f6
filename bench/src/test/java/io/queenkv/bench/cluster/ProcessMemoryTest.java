package io.queenkv.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class ProcessMemoryTest {
    @Test
    void readsVmRssInKilobytes() {
        List<String> status = List.of("Name:\tjava", "VmPeak:\t 9999999 kB", "VmRSS:\t  123456 kB", "Threads:\t40");
        assertThat(ProcessMemory.parseVmRssBytes(status)).isEqualTo(123456L * 1024);
    }

    @Test
    void readsThisProcess() {
        assertThat(ProcessMemory.rssBytes(ProcessHandle.current().pid())).isPositive();
    }
}
