package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.store.outbox.IdempotencyKey;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Charges through {@link PaymentApi} with the JDK's HTTP client: with an {@code Idempotency-Key} header, or without
 * one (as the billing run did in the incident). Thread-safe.
 */
final class PaymentClient {

    /** The provider's answer: its status, its body, and whether it was replayed from the key. */
    record Answer(int status, String body, boolean replayed) {}

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    private final URI uri;

    PaymentClient(URI uri) {
        this.uri = uri;
    }

    static String body(String customer, String cycle) {
        return "customer=" + customer + "&cycle=" + cycle + "&amount=100";
    }

    /** The customer of a body made by {@link #body}. */
    static String customerOf(String body) {
        return body.substring("customer=".length(), body.indexOf('&'));
    }

    /**
     * Sends one charge.
     *
     * @param key the idempotency key, or null to send none
     * @throws IOException if the provider could not be reached or answered other than 2xx
     */
    Answer charge(String body, IdempotencyKey key) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key.value());
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("payment API answered " + response.statusCode() + ": " + response.body());
        }
        return new Answer(
                response.statusCode(),
                response.body(),
                response.headers().firstValue("Idempotent-Replayed").isPresent());
    }
}
