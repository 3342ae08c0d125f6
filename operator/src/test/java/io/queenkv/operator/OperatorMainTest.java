package io.queenkv.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;

class OperatorMainTest {
    /**
     * The reconciler reads back the status it wrote from JOSDK's cache; only with resource versions read
     * as numbers does an informer event older than that write leave the written copy in place (without,
     * JOSDK drops it on any event and the next reconcile acts on a status from before the write).
     */
    @Test
    void theOperatorOrdersEventsByResourceVersionSoAStatusItWroteIsNotReplacedByAnOlderOne() {
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            ConfigurationService config = ConfigurationService.newOverriddenConfigurationService(o -> OperatorMain.configure(o, client));
            assertThat(config.parseResourceVersionsForEventFilteringAndCaching()).isTrue();
            assertThat(config.getKubernetesClient()).isSameAs(client);
        }
    }
}
