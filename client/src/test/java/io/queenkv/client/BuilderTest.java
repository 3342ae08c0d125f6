package io.queenkv.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;

import org.junit.jupiter.api.Test;

class BuilderTest {
    @Test
    void anExecutorIsRefusedBesideAnHttpClientOfTheCallersOwn() {
        HttpClient own = HttpClient.newHttpClient();
        assertThatThrownBy(() -> QueenKv.builder().endpoints("http://localhost:1").httpClient(own).executor(Runnable::run).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("executor");
    }

    @Test
    void anExecutorMustBeGiven() {
        assertThatThrownBy(() -> QueenKv.builder().executor(null)).isInstanceOf(NullPointerException.class);
    }
}
