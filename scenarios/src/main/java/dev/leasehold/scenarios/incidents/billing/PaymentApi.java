package dev.leasehold.scenarios.incidents.billing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.leasehold.scenarios.cli.EnvException;
import dev.leasehold.scenarios.report.Timeline;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A payment provider's API, served over HTTP on loopback by the JDK's built-in server: {@code POST /v1/charges} with
 * a form body {@code customer=c1&cycle=2026-11&amount=100} charges the customer and answers {@code 201} with the
 * charge's id.
 *
 * <p>When it honours keys it treats an {@code Idempotency-Key} header the way payment providers do: the first request
 * with a key is executed and its response stored; a later request with the same key and the same body gets the
 * stored response again (header {@code Idempotent-Replayed: true}) and charges nothing; the same key with a different
 * body is an error ({@code 422}). A provider that ignores keys charges on every request.
 *
 * <p>Requests are handled one at a time (a provider serializes requests with one key; here all of them, which is
 * simpler and changes nothing for the story). Thread-safe.
 */
final class PaymentApi implements AutoCloseable {

    static final String LANE = "provider";

    private record Stored(String body, int status, String response) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final boolean honoursKeys;
    private final Timeline timeline;
    private final Map<String, Stored> byKey = new HashMap<>();
    private final Map<String, Integer> charges = new LinkedHashMap<>();
    private final List<String> replayed = new ArrayList<>();
    private int nextCharge = 1;

    private PaymentApi(boolean honoursKeys, Timeline timeline) throws IOException {
        this.honoursKeys = honoursKeys;
        this.timeline = timeline;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/v1/charges", this::handle);
        server.setExecutor(executor);
    }

    static PaymentApi start(boolean honoursKeys, Timeline timeline) {
        try {
            PaymentApi api = new PaymentApi(honoursKeys, timeline);
            api.server.start();
            timeline.info(
                    LANE,
                    "payment API up at " + api.uri()
                            + (honoursKeys ? ", honours Idempotency-Key" : ", IGNORES Idempotency-Key"));
            return api;
        } catch (IOException e) {
            throw new EnvException("could not start the payment API on loopback: " + e.getMessage(), e);
        }
    }

    URI uri() {
        InetSocketAddress address = server.getAddress();
        return URI.create("http://" + address.getHostString() + ":" + address.getPort() + "/v1/charges");
    }

    /** Charges executed per customer, in the order customers were first charged. */
    synchronized Map<String, Integer> chargesByCustomer() {
        return new LinkedHashMap<>(charges);
    }

    /** Customers whose repeated request was answered from its key, without a charge. */
    synchronized List<String> replayed() {
        return List.copyOf(replayed);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                respond(exchange, 405, "{\"error\":\"method_not_allowed\"}", false);
                return;
            }
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String sent = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            String key = honoursKeys ? sent : null;
            Stored answer;
            boolean replay;
            synchronized (this) {
                Stored earlier = key == null ? null : byKey.get(key);
                replay = earlier != null && earlier.body().equals(body);
                if (earlier != null && !replay) {
                    answer = new Stored(body, 422, "{\"error\":\"idempotency_key_reused_with_another_body\"}");
                    timeline.problem(LANE, "key " + key + " reused with another body: 422");
                } else if (replay) {
                    answer = earlier;
                    replayed.add(customer(body));
                    timeline.info(
                            LANE,
                            "key " + key + " seen before: the first response again, NO charge",
                            customer(body) + " replayed");
                } else {
                    answer = charge(body, sent == null ? "no key" : "key " + sent + (honoursKeys ? "" : " ignored"));
                    if (key != null) {
                        byKey.put(key, answer);
                    }
                }
            }
            respond(exchange, answer.status(), answer.response(), replay);
        }
    }

    /** Executes a charge (under the monitor); {@code how} says which key came with it, for the timeline. */
    private Stored charge(String body, String how) {
        String customer = customer(body);
        if (customer == null) {
            return new Stored(body, 400, "{\"error\":\"customer_missing\"}");
        }
        int times = charges.merge(customer, 1, Integer::sum);
        String id = "ch_" + nextCharge++;
        if (times > 1) {
            timeline.problem(
                    LANE,
                    "charged " + customer + " AGAIN (" + id + ", " + how + "): " + times + " charges",
                    customer + " again");
        } else {
            timeline.info(LANE, "charged " + customer + " (" + id + ", " + how + ")", customer);
        }
        return new Stored(body, 201, "{\"id\":\"" + id + "\",\"customer\":\"" + customer + "\"}");
    }

    private static String customer(String body) {
        for (String pair : body.split("&")) {
            if (pair.startsWith("customer=")) {
                return pair.substring("customer=".length());
            }
        }
        return null;
    }

    private static void respond(HttpExchange exchange, int status, String body, boolean replay) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (replay) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
